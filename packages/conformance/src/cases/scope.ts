import assert from 'node:assert/strict';
import http from 'node:http';
import { inParallel, send } from '../client.js';
import { echoedId, timeoutFor, type BulkSize, type CaseSize, type ConformanceCase } from '../case.js';
import { probeHeader } from '../observations.js';

const outsideSizes: Record<CaseSize, BulkSize> = {
  full: { requests: 300, concurrency: 30, slow: false },
  quick: { requests: 100, concurrency: 20, slow: false },
};

const valuesFromMiddleware: ConformanceCase = {
  id: 'values-from-middleware',
  title: 'a value set by an earlier middleware after an await is visible in the handler',
  profile: 'universal',
  tags: [],
  needs: ['setValue'],
  timeoutMs: timeoutFor(),
  async run({ server, echoHeader, probe }) {
    const port = await server();
    const response = await send(port, { path: '/values', headers: { [probeHeader]: probe() } });
    const id = echoedId(response, echoHeader);
    assert.equal((response.json as { value: unknown }).value, `user of ${id}`);
  },
};

const keepAlive: ConformanceCase = {
  id: 'keep-alive',
  title: "successive requests on one keep-alive socket never see the previous request's values",
  profile: 'universal',
  tags: [],
  needs: [],
  timeoutMs: timeoutFor(20),
  async run({ harness, server, echoHeader, probe }) {
    const port = await server();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const ports = new Set<number | undefined>();
      const ids = new Set<string>();
      for (let i = 0; i < 20; i++) {
        const response = await send(port, { path: '/values', headers: { [probeHeader]: probe() }, agent });
        ports.add(response.localPort);
        const id = echoedId(response, echoHeader);
        const body = response.json as { requestId: unknown; valueAtStart: unknown; value: unknown };
        assert.equal(body.requestId, id);
        assert.ok(!ids.has(id), `request ${i} reused the id ${id} of an earlier request`);
        ids.add(id);
        if (harness.setValue !== undefined) {
          assert.equal(body.valueAtStart, null, `request ${i} started with the previous request's value`);
          assert.equal(body.value, `user of ${id}`);
        }
      }
      assert.equal(ports.size, 1, 'all 20 requests must share one socket for this case to mean anything');
    } finally {
      agent.destroy();
    }
  },
};

function outsideRequest({ requests, concurrency }: BulkSize): ConformanceCase {
  return {
    id: 'outside-request',
    title: 'outside any request (test code, a timer started before the requests) no request id is visible',
    profile: 'universal',
    tags: [],
    needs: [],
    timeoutMs: timeoutFor(requests),
    async run({ harness, server }) {
      const port = await server();
      assert.equal(harness.readRequestId(), undefined, 'test code runs outside any request');
      // Started here, outside any request, and stopped below: importing the suite starts nothing.
      const samples: unknown[] = [];
      const ticker = setInterval(() => samples.push(harness.readRequestId()), 1);
      try {
        await inParallel(requests, concurrency, (index) => send(port, { path: `/delay?n=${index}` }));
      } finally {
        clearInterval(ticker);
      }
      assert.ok(samples.length > 0, 'the timer must have fired while the requests were served');
      const leaked = samples.filter((sample) => sample !== undefined);
      assert.deepEqual(leaked.slice(0, 5), [], `${leaked.length} of ${samples.length} timer ticks saw a request id`);
    },
  };
}

/** Ambient's rule that nothing fails silently; a library whose `set` ignores a missing scope differs. */
const setOutsideThrows: ConformanceCase = {
  id: 'set-outside-throws',
  title: 'setting a value outside any request throws instead of failing silently or leaking',
  profile: 'ambient',
  tags: [],
  needs: ['setValue'],
  timeoutMs: timeoutFor(),
  run({ harness }) {
    assert.throws(() => harness.setValue?.('user', 'leaked'), 'setting a value outside any request must throw');
    assert.equal(harness.getValue?.('user'), undefined);
    return Promise.resolve();
  },
};

export function scopeCases(size: CaseSize): ConformanceCase[] {
  return [valuesFromMiddleware, keepAlive, outsideRequest(outsideSizes[size]), setOutsideThrows];
}

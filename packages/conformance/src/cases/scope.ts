import assert from 'node:assert/strict';
import http from 'node:http';
import { inParallel, send } from '../client.js';
import { echoedId, type ConformanceCase } from '../case.js';
import { probeHeader } from '../observations.js';

/**
 * A timer created at module load belongs to no request, so whatever it reads must be "no request", even
 * while requests are being served around it.
 */
let readOutside: (() => unknown) | undefined;
const outsideSamples: unknown[] = [];
setInterval(() => {
  if (readOutside !== undefined) outsideSamples.push(readOutside());
}, 1).unref();

export const scopeCases: ConformanceCase[] = [
  {
    id: 'values-from-middleware',
    title: 'a value set by an earlier middleware after an await is visible in the handler',
    timeoutMs: 10_000,
    needs: ['setValue'],
    async run({ server, echoHeader, probe }) {
      const port = await server();
      const response = await send(port, { path: '/values', headers: { [probeHeader]: probe() } });
      const id = echoedId(response, echoHeader);
      assert.equal((response.json as { value: unknown }).value, `user of ${id}`);
    },
  },
  {
    id: 'keep-alive',
    title: "successive requests on one keep-alive socket never see the previous request's values",
    timeoutMs: 10_000,
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
  },
  {
    id: 'outside-request',
    title: 'outside any request (startup code, a timer created at module load) no request id is visible',
    timeoutMs: 20_000,
    async run({ harness, server }) {
      const port = await server();
      assert.equal(harness.readRequestId(), undefined, 'test code runs outside any request');
      outsideSamples.length = 0;
      readOutside = () => harness.readRequestId();
      try {
        await inParallel(300, 30, (index) => send(port, { path: `/delay?n=${index}` }));
      } finally {
        readOutside = undefined;
      }
      assert.ok(outsideSamples.length > 0, 'the module-load timer must have fired during the requests');
      const leaked = outsideSamples.filter((sample) => sample !== undefined);
      assert.deepEqual(
        leaked.slice(0, 5),
        [],
        `${leaked.length} of ${outsideSamples.length} timer ticks saw a request id`,
      );
    },
  },
  {
    id: 'set-outside-throws',
    title: 'setting a value outside any request throws instead of failing silently or leaking',
    timeoutMs: 5_000,
    needs: ['setValue'],
    run({ harness }) {
      assert.throws(() => harness.setValue?.('user', 'leaked'), 'setting a value outside any request must throw');
      assert.equal(harness.getValue?.('user'), undefined);
      return Promise.resolve();
    },
  },
];

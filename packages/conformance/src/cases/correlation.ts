import assert from 'node:assert/strict';
import http from 'node:http';
import { inParallel, send } from '../client.js';
import { echoedId, timeoutFor, type BulkSize, type CaseSize, type ConformanceCase } from '../case.js';
import { probeHeader, readingBody } from '../observations.js';

const concurrencySizes: Record<CaseSize, BulkSize> = {
  full: { requests: 2000, concurrency: 100, slow: true },
  quick: { requests: 200, concurrency: 50, slow: false },
};

const oneIdEverywhere: ConformanceCase = {
  id: 'one-id-everywhere',
  title:
    'middleware, handler, awaits, timer, emitter, fs callback, thenable, body listeners, finish: ' +
    'one id, the echoed one',
  profile: 'universal',
  tags: [],
  needs: [],
  timeoutMs: timeoutFor(),
  async run({ server, echoHeader, observations, probe }) {
    const port = await server();
    const token = probe();
    const response = await send(port, {
      method: 'POST',
      path: '/everywhere',
      headers: { [probeHeader]: token, 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' },
      body: ['first packet,', 'second packet'],
      // The body follows once the handler listens: its `data` events come from the socket on any machine.
      bodyAfter: () => observations.waitFor(token, readingBody),
      bodyDelayMs: 10,
    });
    assert.equal(response.status, 200, response.text);
    const id = echoedId(response, echoHeader);
    const seen = (response.json as { seen?: Record<string, unknown> } | undefined)?.seen ?? {};
    const expected: Record<string, unknown> = {
      handler: id,
      bodyData: [id, id],
      bodyEnd: id,
      afterAwaits: id,
      timer: id,
      emitter: id,
      fsCallback: id,
      thenable: id,
    };
    const wrong = Object.keys(expected)
      .filter((point) => JSON.stringify(seen[point]) !== JSON.stringify(expected[point]))
      .map((point) => `${point} (saw ${JSON.stringify(seen[point]) ?? 'nothing'})`);
    assert.deepEqual(wrong, [], `the request id was lost or wrong at: ${wrong.join(', ')}`);
    assert.equal(observations.get(token, 'middleware'), id, 'middleware');
    assert.equal(await observations.waitFor(token, 'finish'), id, 'the response finish listener');
  },
};

function concurrencyCase({ requests, concurrency, slow }: BulkSize): ConformanceCase {
  return {
    id: 'concurrency',
    title:
      `${requests.toLocaleString('en')} requests at concurrency ${concurrency} with random delays: ` +
      'zero mismatches',
    profile: 'universal',
    tags: slow ? ['slow'] : [],
    needs: [],
    timeoutMs: timeoutFor(requests),
    async run({ server, echoHeader }) {
      const port = await server();
      const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
      try {
        const mismatches: string[] = [];
        await inParallel(requests, concurrency, async (index) => {
          const response = await send(port, { path: `/delay?n=${index}`, agent });
          const id = echoedId(response, echoHeader);
          const seen = (response.json as { seen: unknown[] }).seen;
          if (response.status !== 200 || seen.some((value) => value !== id)) {
            mismatches.push(`request ${index}: echoed ${id}, saw ${JSON.stringify(seen)}`);
          }
        });
        assert.deepEqual(
          mismatches.slice(0, 5),
          [],
          `${mismatches.length} of ${requests} requests saw another request's id`,
        );
      } finally {
        agent.destroy();
      }
    },
  };
}

export function correlationCases(size: CaseSize): ConformanceCase[] {
  return [oneIdEverywhere, concurrencyCase(concurrencySizes[size])];
}

import assert from 'node:assert/strict';
import { inParallel, send } from '../client.js';
import { echoedId, type ConformanceCase } from '../case.js';
import { probeHeader } from '../observations.js';

export const correlationCases: ConformanceCase[] = [
  {
    id: 'one-id-everywhere',
    title:
      'middleware, handler, awaits, timer, emitter, fs callback, thenable, body listeners, finish: one id, the echoed one',
    timeoutMs: 10_000,
    async run({ server, echoHeader, observations, probe }) {
      const port = await server();
      const token = probe();
      const response = await send(port, {
        method: 'POST',
        path: '/everywhere',
        headers: { [probeHeader]: token, 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' },
        body: ['first packet,', 'second packet'],
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
  },
  {
    id: 'concurrency',
    title: '2,000 requests at concurrency 100 with random delays: zero mismatches',
    timeoutMs: 60_000,
    async run({ server, echoHeader }) {
      const port = await server();
      const agent = new (await import('node:http')).Agent({ keepAlive: true, maxSockets: 100 });
      try {
        const mismatches: string[] = [];
        await inParallel(2000, 100, async (index) => {
          const response = await send(port, { path: `/delay?n=${index}`, agent });
          const id = echoedId(response, echoHeader);
          const seen = (response.json as { seen: unknown[] }).seen;
          if (response.status !== 200 || seen.some((value) => value !== id)) {
            mismatches.push(`request ${index}: echoed ${id}, saw ${JSON.stringify(seen)}`);
          }
        });
        assert.deepEqual(mismatches.slice(0, 5), [], `${mismatches.length} of 2000 requests saw another request's id`);
      } finally {
        agent.destroy();
      }
    },
  },
];

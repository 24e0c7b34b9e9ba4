import assert from 'node:assert/strict';
import http from 'node:http';
import { inParallel, send } from '../client.js';
import { timeoutFor, type BulkSize, type CaseSize, type ConformanceCase } from '../case.js';
import { exposedGc } from '../needs.js';

const sizes: Record<CaseSize, BulkSize> = {
  full: { requests: 20_000, concurrency: 50, slow: true },
  quick: { requests: 2_000, concurrency: 50, slow: false },
};

/** Finalizers run on later turns after a GC: enough rounds for them all, counted, never timed. */
const gcRounds = 200;

function memoryCase({ requests, concurrency, slow }: BulkSize): ConformanceCase {
  return {
    id: 'memory',
    title: `after ${requests.toLocaleString('en')} requests and a forced GC, no request scope is retained`,
    profile: 'universal',
    tags: slow ? ['slow'] : [],
    // The suite never switches V8 flags in the host's process: without --expose-gc this case does not run.
    needs: ['setValue', 'gc'],
    timeoutMs: timeoutFor(requests),
    async run({ server, retention }) {
      const gc = exposedGc();
      assert.ok(gc !== undefined, 'this case needs node --expose-gc');
      const port = await server();
      const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
      const createdBefore = retention.created;
      const collectedBefore = retention.collected;
      try {
        await inParallel(requests, concurrency, async () => {
          const response = await send(port, { path: '/memory', agent });
          assert.equal(response.status, 200, response.text);
        });
      } finally {
        agent.destroy();
      }
      const created = retention.created - createdBefore;
      assert.equal(created, requests, 'every request must have stored its marker in its scope');
      for (let round = 0; round < gcRounds && retention.collected - collectedBefore < created; round++) {
        gc();
        await new Promise((resolve) => setTimeout(resolve, 10));
        await new Promise((resolve) => setImmediate(resolve));
      }
      const retained = created - (retention.collected - collectedBefore);
      assert.equal(retained, 0, `${retained} of ${created} request scopes were still reachable after GC`);
    },
  };
}

export function memoryCases(size: CaseSize): ConformanceCase[] {
  return [memoryCase(sizes[size])];
}

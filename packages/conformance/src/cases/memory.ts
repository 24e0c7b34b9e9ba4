import assert from 'node:assert/strict';
import http from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { inParallel, send } from '../client.js';
import type { ConformanceCase } from '../case.js';

/** global.gc when node runs with --expose-gc, or the same function obtained by switching the flag on. */
function obtainGc(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (typeof exposed === 'function') return exposed;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

const requests = 20_000;

export const memoryCases: ConformanceCase[] = [
  {
    id: 'memory',
    title: `after ${requests.toLocaleString('en')} requests and a forced GC, no request scope is retained`,
    timeoutMs: 180_000,
    needs: ['setValue'],
    async run({ server, retention }) {
      const port = await server();
      const gc = obtainGc();
      const agent = new http.Agent({ keepAlive: true, maxSockets: 50 });
      const createdBefore = retention.created;
      const collectedBefore = retention.collected;
      try {
        await inParallel(requests, 50, async () => {
          const response = await send(port, { path: '/memory', agent });
          assert.equal(response.status, 200, response.text);
        });
      } finally {
        agent.destroy();
      }
      const created = retention.created - createdBefore;
      assert.equal(created, requests, 'every request must have stored its marker in its scope');
      // Finalizers run after a GC, on a later turn: collect until every marker is reported, for at most 10 s.
      const deadline = Date.now() + 10_000;
      while (retention.collected - collectedBefore < created && Date.now() < deadline) {
        gc();
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const retained = created - (retention.collected - collectedBefore);
      assert.equal(retained, 0, `${retained} of ${created} request scopes were still reachable after GC`);
    },
  },
];

import assert from 'node:assert/strict';
import http from 'node:http';
import { soakLabelHeader, type SoakReply } from '../app.js';
import { inParallel, send } from '../client.js';
import { echoedId, timeoutFor, type CaseSize, type ConformanceCase } from '../case.js';
import { exposedGc } from '../needs.js';

/** How many requests a soak sends and how many at a time. */
export interface SoakSize {
  readonly requests: number;
  readonly concurrency: number;
}

/** `full`: what an operator runs (scripts/soak-adapters.mjs). `quick`: the soak-ci profile, what `npm test` runs per adapter. */
export const soakSizes: Readonly<Record<CaseSize, SoakSize>> = {
  full: { requests: 10_000, concurrency: 200 },
  quick: { requests: 1_500, concurrency: 100 },
};

/**
 * Finalizers run on later turns after a GC, and node's own short timers (its cached Date header, say) hold
 * the scope they were armed in until they fire: enough rounds for them all, counted, never timed. Each
 * round waits at least 10 ms, so the rounds outlast those timers however fast the machine.
 */
const gcRounds = 200;

/** At most this many crossed requests are described in a failure message. */
const shownMismatches = 5;

/**
 * Request `index`'s shape: keep-alive and fresh connections alternate, and so do bodies, so every pairing
 * of the two occurs (0: keep-alive POST, 1: fresh POST, 2: keep-alive GET, 3: fresh GET).
 */
function shapeOf(index: number): { keepAlive: boolean; post: boolean; words: string } {
  const keepAlive = index % 2 === 0;
  const post = index % 4 < 2;
  return { keepAlive, post, words: `${post ? 'POST' : 'GET'} on a ${keepAlive ? 'keep-alive' : 'fresh'} connection` };
}

function soakCase({ requests, concurrency }: SoakSize): ConformanceCase {
  return {
    id: 'soak',
    title:
      `${requests.toLocaleString('en')} requests at concurrency ${concurrency} on a fresh server: ` +
      'none crossed, none retained, the first included',
    profile: 'soak',
    tags: ['slow'],
    needs: ['setValue', 'gc'],
    timeoutMs: timeoutFor(requests),
    async run({ freshServer, retention, echoHeader, probe }) {
      const gc = exposedGc();
      assert.ok(gc !== undefined, 'this case needs node --expose-gc');
      // Each run labels its requests with an id of its own: the tracker is the session's, shared by every run.
      const run = probe();
      const labelOf = (index: number) => `${run}:${index}`;
      const ownLive = () => [...retention.labelled.live].filter((label) => label.startsWith(`${run}:`));
      // A server of its own, so that its first request is one of ours: what a first request loads lazily
      // can keep that request's scope for the life of the process (sequelize/sequelize#10462).
      const server = await freshServer();
      // Only half the requests take the agent, so some of its sockets idle; one idle past the server's
      // keep-alive timeout (node's default is 5 s) can be closed by the server just as the client reuses it,
      // and the request fails with "socket hang up". The agent closes its idle sockets well before that.
      const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency, timeout: 1_000 });
      const crossed: string[] = [];
      let mismatches = 0;
      const sendOne = async (index: number) => {
        const label = labelOf(index);
        const { keepAlive, post, words } = shapeOf(index);
        const response = await send(server.port, {
          method: post ? 'POST' : 'GET',
          path: '/soak',
          headers: post
            ? { [soakLabelHeader]: label, 'content-type': 'application/octet-stream' }
            : { [soakLabelHeader]: label },
          ...(post ? { body: [label] } : {}),
          agent: keepAlive ? agent : false,
        });
        assert.equal(response.status, 200, `request #${index} (${words}): ${response.text}`);
        const reply = response.json as SoakReply;
        const seenByClient: string[] = [];
        if (reply.label !== label) seenByClient.push(`the route read label ${reply.label}`);
        if (echoedId(response, echoHeader) !== reply.requestId) seenByClient.push('the echoed id is not the handler’s');
        const count = reply.mismatches + seenByClient.length;
        if (count > 0) {
          mismatches += count;
          if (crossed.length < shownMismatches)
            crossed.push(`#${index} (${words}): ${[...reply.crossedAt, ...seenByClient].join(', ')}`);
        }
      };
      try {
        // The first request alone, so that "the first request" is one every server sees first, and is #0.
        await sendOne(0);
        await inParallel(requests - 1, concurrency, (index) => sendOne(index + 1));
      } finally {
        agent.destroy();
        await server.close();
      }
      assert.equal(mismatches, 0, `${mismatches} hops saw another request's scope or none: ${crossed.join('; ')}`);
      let rounds = 0;
      for (; rounds < gcRounds && ownLive().length > 0; rounds++) {
        gc();
        await new Promise((resolve) => setTimeout(resolve, 10));
        await new Promise((resolve) => setImmediate(resolve));
      }
      const retained = ownLive().map((label) => Number(label.slice(run.length + 1)));
      if (retained.length === 0) return;
      retained.sort((a, b) => a - b);
      const first = retained[0] === 0 ? `the first request's (#0, ${shapeOf(0).words}) among them; ` : '';
      assert.fail(
        `${retained.length} of ${requests} request scopes still reachable after the server closed and ${rounds} GCs, ` +
          `${first}retained: ${retained
            .slice(0, 10)
            .map((index) => `#${index}`)
            .join(', ')}${retained.length > 10 ? ', …' : ''}`,
      );
    },
  };
}

/** The soak case at a size: the profile's, or the caller's own. */
export function soakCases(size: CaseSize, override?: SoakSize): ConformanceCase[] {
  return [soakCase(override ?? soakSizes[size])];
}

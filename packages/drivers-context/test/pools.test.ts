// Generic pools on real resources: generic-pool 3.9 handing out real pg clients (the real PostgreSQL at
// 127.0.0.1:5432), and undici's Pool over a real HTTP server on 127.0.0.1. Neither needs the guard: both hand
// a waiting caller its resource through a promise (generic-pool's acquire()) or an AsyncResource of the
// caller's (undici's request callbacks), so the README's table row for them reads "the caller" in both
// columns. The promise paths (a B after its await) hold by how promises work, whatever the pool does; the
// callbacks are what the pools decide. Each case runs without the guard and with it (undici's guard phase guards
// pg only, so it can only show that the guard leaves undici alone). What the guard does change here is pg's: a client
// generic-pool created inside A (its factory.create runs in the acquirer) calls every later query back in A.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import genericPool from 'generic-pool';
import pg from 'pg';
import { Pool as UndiciPool } from 'undici';
import { runInRoot } from '@ambient/core';
import {
  everyRequest,
  expectEachSawItself,
  inRequest,
  openedResources,
  recordRow,
  requestIds,
  seen,
  summarize,
} from './helpers/requests.js';
import { describeEachPhase } from './helpers/phases.js';
import { describeWithServices, pgConfig, versionOf } from './helpers/services.js';

// Skipped (loudly) only where PostgreSQL is not reachable on 127.0.0.1; under CI=true describeWithServices fails.
describeWithServices(['postgres'], 'generic-pool: a waiting acquire() resolves in its caller', () => {
  const resources = openedResources();
  afterAll(() => resources.closeAll());
  const driver = versionOf('generic-pool');

  describeEachPhase(
    () => ({ pg }),
    (phase) => {
      it('A holds the one client; each waiting B gets it in its own request, and its query callback too', async () => {
        const createdIn: string[] = [];
        const pool = resources.track(
          // Created at boot, as the README says: generic-pool's factory.create runs in the acquirer.
          runInRoot(() =>
            genericPool.createPool(
              {
                create: async () => {
                  createdIn.push(seen());
                  const client = new pg.Client(pgConfig);
                  await client.connect();
                  return client;
                },
                destroy: (client) => client.end(),
              },
              { max: 1, min: 0 },
            ),
          ),
          async (opened) => {
            await opened.drain();
            await opened.clear();
          },
        );
        let onHeld!: () => void;
        const held = new Promise<void>((resolve) => (onHeld = resolve));
        const a = inRequest('A', async () => {
          const client = await pool.acquire();
          onHeld();
          await new Promise<void>((resolve, reject) =>
            client.query('SELECT pg_sleep(0.2)', (error) => {
              // Released from the query's callback: with a promise-based pool, the waiter still gets its own.
              void pool.release(client);
              if (error) reject(error);
              else resolve();
            }),
          );
        });
        await held;
        const ids = requestIds(5);
        const acquired: Array<readonly [string, string]> = [];
        const callbacks = await everyRequest(ids, (id, report) => {
          void pool.acquire().then((client) => {
            acquired.push([id, seen()]);
            client.query('SELECT 1', (error) => {
              void pool.release(client);
              report(error);
            });
          }, report);
        });
        await a;
        recordRow(driver, 'acquire() queued behind A: B after await', phase, summarize(acquired));
        recordRow(driver, "acquire() queued behind A: B's pg client.query(cb)", phase, summarize(callbacks));
        // The documented pitfall: the one client was created by the first acquire, A's.
        expect(createdIn).toEqual(['A']);
        expectEachSawItself(acquired);
        // The client's socket was opened in A (its create ran there): without the guard, pg calls back in A.
        if (phase === 'without guard') expect(new Set(callbacks.map(([, saw]) => saw))).toEqual(new Set(['A']));
        else expectEachSawItself(callbacks);
        await resources.close(pool);
      });
    },
  );
});

describe('undici Pool: a queued request resolves and calls back in its caller', () => {
  let server: Server;
  let origin: string;
  const release: Array<() => void> = [];
  beforeAll(async () => {
    // A's request is answered only when the test says so: B's queue behind it on the pool's one connection.
    server = createServer((request, response) => {
      const answer = () => response.end(request.url);
      if (request.url === '/hold') release.push(answer);
      else answer();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  describeEachPhase(
    () => ({ pg }),
    (phase) => {
      it('B requests queued behind A on one connection: awaited and callback style', async () => {
        const pool = runInRoot(() => new UndiciPool(origin, { connections: 1, pipelining: 1 }));
        try {
          let sent!: () => void;
          const aSent = new Promise<void>((resolve) => (sent = resolve));
          const a = inRequest('A', async () => {
            const pending = pool.request({ path: '/hold', method: 'GET' });
            sent();
            const { body } = await pending;
            await body.text();
          });
          await aSent;
          const ids = requestIds(5);
          const awaited = Promise.all(
            ids.map((id) =>
              inRequest(id, async () => {
                const { body } = await pool.request({ path: `/${id}`, method: 'GET' });
                const text = await body.text();
                return [id, text === `/${id}` ? seen() : `wrong body ${text}`] as const;
              }),
            ),
          );
          const callbacks = everyRequest(requestIds(5, 'C'), (id, report) =>
            pool.request({ path: `/${id}`, method: 'GET' }, (error, data) => {
              if (error) return report(error);
              // What the callback itself runs in, read before anything else is awaited.
              const inCallback = seen();
              data.body.resume();
              data.body.on('end', () => report(inCallback === id ? null : new Error(`callback ran in ${inCallback}`)));
            }),
          );
          // A is answered once every B and C is queued behind it on the pool's one connection.
          while (release.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
          release.shift()!();
          await a;
          const awaitedSeen = await awaited;
          const callbackSeen = await callbacks;
          recordRow('undici Pool', 'request() queued behind A: awaited', phase, summarize(awaitedSeen));
          recordRow('undici Pool', 'request(opts, cb) queued behind A: body end', phase, summarize(callbackSeen));
          expectEachSawItself(awaitedSeen);
          expectEachSawItself(callbackSeen);
        } finally {
          await pool.close();
        }
      });
    },
  );
});

// pg 8.23 on the real PostgreSQL at 127.0.0.1:5432: pg and pg-pool publish no channels
// (brianc/node-postgres#3650), so guardDrivers({ pg }) patches them. Each case runs first without the guard,
// recording what the waiting requests see, then with it, where every request must see itself.
import { Socket } from 'node:net';
import { inspect } from 'node:util';
import pg from 'pg';
import { runInRoot } from '@ambient/core';
import { asyncContextImplementation } from '@ambient/core/internal';
import {
  canCollect,
  collectGarbage,
  everyRequest,
  expectEachSawItself,
  expectNoneSawItself,
  inRequest,
  inTrackedRequest,
  openedResources,
  recordRow,
  requestIds,
  seen,
  summarize,
  type Seen,
} from './helpers/requests.js';
import { keptWarnings } from './helpers/expected-warnings.js';
import { holdPgConnection } from './helpers/hold-connection.js';
import { describeEachPhase, expectCollectedOnlyWithGuard, type Phase } from './helpers/phases.js';
import { describeWithServices, pgConfig, versionOf } from './helpers/services.js';

const driver = versionOf('pg');

/** What the research found the same on every run and Node version (20 to 26): asserted without the guard. */
function expectUnguarded(phase: Phase, results: Seen): void {
  if (phase === 'without guard') expectNoneSawItself(results);
  else expectEachSawItself(results);
}

describeWithServices(['postgres'], 'pg: callbacks run in the request that made the call', () => {
  const resources = openedResources();
  afterAll(() => resources.closeAll());

  function newPool(options: pg.PoolConfig = {}): pg.Pool {
    return resources.track(new pg.Pool({ ...pgConfig, max: 1, ...options }), (pool) => pool.end());
  }

  /** A pool whose one connection was opened at boot, outside any request. */
  async function warmPool(): Promise<pg.Pool> {
    const pool = newPool();
    await runInRoot(async () => (await pool.connect()).release());
    return pool;
  }

  describeEachPhase(
    () => ({ pg }),
    (phase) => {
      it.each(['query callback', 'own timer'] as const)(
        'pool.connect(cb) queued behind A, who releases from its %s',
        async (how) => {
          const pool = await warmPool();
          const a = holdPgConnection(pool, how);
          await a.held;
          const ids = requestIds();
          const waiting = everyRequest(ids, (_, report) =>
            pool.connect((error, _client, release) => {
              report(error);
              release();
            }),
          );
          expect(pool.waitingCount).toBe(ids.length);
          const results = await waiting;
          await a.done;
          recordRow(driver, `pool.connect(cb) queued; A releases from its ${how}`, phase, summarize(results));
          expectUnguarded(phase, results);
          await resources.close(pool);
        },
      );

      it('pool.query(text, values, cb) queued behind A', async () => {
        const pool = await warmPool();
        const a = holdPgConnection(pool, 'query callback');
        await a.held;
        const rows: string[] = [];
        const results = await everyRequest(requestIds(), (id, report) =>
          pool.query<{ id: string }>('SELECT $1::text AS id', [id], (error, result) => {
            if (result !== undefined) rows.push(result.rows[0]!.id);
            report(error);
          }),
        );
        await a.done;
        expect(rows.sort()).toEqual(requestIds());
        recordRow(driver, 'pool.query(text, cb) queued', phase, summarize(results));
        expectUnguarded(phase, results);
        await resources.close(pool);
      });

      it('client.query(cb) queued on one client opened at boot', async () => {
        const client = resources.track(new pg.Client(pgConfig), (opened) => opened.end());
        await runInRoot(() => client.connect());
        const a = new Promise<void>((resolve, reject) =>
          inRequest('A', () => client.query('SELECT pg_sleep(0.2)', (error) => (error ? reject(error) : resolve()))),
        );
        const results = await everyRequest(requestIds(), (id, report) =>
          client.query('SELECT $1::text AS id', [id], (error) => report(error)),
        );
        await a;
        // pg 8 warned (once per process) that queries queued on a busy client; the setup file kept it quiet.
        expect(keptWarnings.pgQueryQueued).toBe(1);
        recordRow(driver, 'client.query(cb) queued on one client', phase, summarize(results));
        expectUnguarded(phase, results);
        await resources.close(client);
      });

      it('promise paths: await pool.connect(), client.query() and pool.query() queued behind A (right either way)', async () => {
        const pool = await warmPool();
        const a = holdPgConnection(pool, 'query callback');
        await a.held;
        const results = await Promise.all(
          requestIds().map((id) =>
            inRequest(id, async () => {
              const client = await pool.connect();
              const afterConnect = [id, seen()] as const;
              await client.query('SELECT 1');
              const afterQuery = [id, seen()] as const;
              client.release();
              await pool.query('SELECT 1');
              return [afterConnect, afterQuery, [id, seen()] as const];
            }),
          ),
        );
        await a.done;
        const flat = results.flat();
        recordRow(driver, 'promise pool.connect() / client.query() / pool.query() queued', phase, summarize(flat));
        expectEachSawItself(flat);
        await resources.close(pool);
      });

      // pg-pool emits a waiting request's `acquire` from the release of the one before it. Each request here
      // waits behind A and takes the client in turn: its `acquire` is the one after the previous request's.
      it.each([
        ['pool.connect(cb)', {}],
        ['pool.connect(cb) with connectionTimeoutMillis', { connectionTimeoutMillis: 10_000 }],
        ['await pool.connect()', {}],
        ['pool.query(text, cb)', {}],
      ] as const)("pool.on('acquire') of each request queued behind A: %s", async (style, options) => {
        const pool = newPool(options);
        await runInRoot(async () => (await pool.connect()).release());
        const acquired: string[] = [];
        pool.on('acquire', () => acquired.push(seen()));
        const a = holdPgConnection(pool, 'own timer');
        await a.held;
        const ids = requestIds();
        const results = await everyRequest(ids, (_, report) => {
          if (style === 'await pool.connect()') {
            pool.connect().then((client) => {
              client.release();
              report(undefined);
            }, report);
          } else if (style === 'pool.query(text, cb)') {
            pool.query('SELECT 1', (error) => report(error));
          } else {
            pool.connect((error, _client, release) => {
              release();
              report(error);
            });
          }
        });
        await a.done;
        expect(acquired.length).toBe(ids.length + 1);
        expect(acquired[0]).toBe('A');
        // Queued in order, served in order (pg-pool's queue is first in, first out).
        const acquiredBy = ids.map((id, index) => [id, acquired[index + 1]!] as const);
        recordRow(driver, `pool.on('acquire') of ${style} queued`, phase, summarize(acquiredBy));
        expectUnguarded(phase, acquiredBy);
        // The callbacks and continuations themselves, as the cases above.
        if (phase === 'with guard' || style === 'await pool.connect()') expectEachSawItself(results);
        await resources.close(pool);
      });

      it("util.inspect of a pool with a request waiting shows none of the request's values", async () => {
        const pool = newPool();
        const a = holdPgConnection(pool, 'own timer');
        await a.held;
        const waiting = everyRequest(['B-0c5e1d'], (_, report) =>
          pool.connect((error, _client, release) => {
            release();
            report(error);
          }),
        );
        const printed = inspect(pool, { depth: 6 });
        expect(printed).not.toContain('B-0c5e1d');
        if (phase === 'with guard') expect(printed).toContain('Waiter [request context]');
        await waiting;
        await a.done;
        await resources.close(pool);
      });

      // The reason every queued connect is recorded, not only those that find no free client: X and Y queue
      // while one client is free, and A releases the other in the same tick, before X's own pulse. A's release
      // hands the free client to X from A's context, and X's release hands it on to Y from X's.
      it("pool.on('acquire') of X and Y queued while a client is free, A releasing in the same tick", async () => {
        const pool = newPool({ max: 2 });
        await runInRoot(async () => {
          const clients = [await pool.connect(), await pool.connect()];
          for (const client of clients) client.release();
        });
        const acquired: string[] = [];
        pool.on('acquire', () => acquired.push(seen()));
        const releaseA = await new Promise<() => void>((resolve, reject) =>
          inRequest('A', () =>
            pool.connect((error, _client, release) => (error ? reject(error) : resolve(() => release()))),
          ),
        );
        const waiting = everyRequest(['X', 'Y'], (_, report) =>
          pool.connect((error, _client, release) => {
            release();
            report(error);
          }),
        );
        inRequest('A', releaseA);
        const results = await waiting;
        recordRow(
          driver,
          "pool.on('acquire'): X, Y queued with a client free; A releases in the same tick",
          phase,
          acquired.slice(1).join(', '),
        );
        expect(acquired[0]).toBe('A');
        if (phase === 'with guard') {
          expect(acquired.slice(1)).toEqual(['X', 'Y']);
          expectEachSawItself(results);
        } else {
          // X's callback, run in A, releases there too, and hands the client on to Y from A.
          expect(acquired.slice(1)).toEqual(['A', 'A']);
        }
        await resources.close(pool);
      });

      // runInRoot enters an empty scope; a test's own body runs in none at all: the guard records both.
      it.each([
        ['inside runInRoot', (connect: () => void) => runInRoot(connect)],
        ['in no scope at all', (connect: () => void) => connect()],
      ] as const)(
        "pool.on('acquire') of a connect made %s, queued behind A: outside any request",
        async (_, outside) => {
          const pool = newPool();
          const acquired: string[] = [];
          pool.on('acquire', () => acquired.push(seen()));
          const a = holdPgConnection(pool, 'own timer');
          await a.held;
          const saw = await new Promise<string>((resolve, reject) =>
            outside(() =>
              pool.connect((error, _client, release) => {
                release();
                if (error) reject(error);
                else resolve(seen());
              }),
            ),
          );
          await a.done;
          recordRow(driver, "pool.on('acquire') of a connect outside any request, queued", phase, acquired[1]!);
          expect(acquired).toEqual(phase === 'with guard' ? ['A', 'none'] : ['A', 'A']);
          expect(saw).toBe(phase === 'with guard' ? 'none' : 'A');
          await resources.close(pool);
        },
      );

      it("A destroys the connection B waits for: B's new client's onConnect, pool.on('connect'), 'acquire' and verify run in B", async () => {
        const events: string[] = [];
        // pg-pool's `onConnect` hook and `verify` option see each new client: the hook from
        // newClient, `verify` from _acquireClient.
        const verify = (_client: unknown, done: (error?: Error) => void) => {
          events.push(`verify ${seen()}`);
          done();
        };
        const onConnect = () => {
          events.push(`onConnect ${seen()}`);
        };
        const pool = newPool({ verify, onConnect });
        pool.on('connect', () => events.push(`connect ${seen()}`));
        pool.on('acquire', () => events.push(`acquire ${seen()}`));
        const a = holdPgConnection(pool, 'destroys from own timer');
        await a.held;
        const [b] = await everyRequest(['B'], (_, report) =>
          pool.connect((error, _client, release) => {
            release();
            report(error);
          }),
        );
        await a.done;
        recordRow(
          driver,
          "B waits; A destroys the client: B's onConnect, pool.on('connect'), 'acquire', verify",
          phase,
          events.slice(4).join(', '),
        );
        expect(events.slice(0, 4)).toEqual(['onConnect A', 'connect A', 'acquire A', 'verify A']);
        if (phase === 'with guard') {
          expect(events.slice(4)).toEqual(['onConnect B', 'connect B', 'acquire B', 'verify B']);
          expect(b).toEqual(['B', 'B']);
        } else {
          expect(events.slice(4).filter((event) => event.endsWith(' B'))).toEqual([]);
        }
        await resources.close(pool);
      });
    },
  );
});

describeWithServices(['postgres'], 'pg: a connection opened by a request keeps none of its values', () => {
  const resources = openedResources();
  afterAll(() => resources.closeAll());

  describeEachPhase(
    () => ({ pg }),
    (phase) => {
      // maxLifetimeSeconds: pg-pool arms a timer for each new client's lifetime (pg-pool's _afterConnect).
      it.each([
        ['', {}],
        [', with maxLifetimeSeconds', { maxLifetimeSeconds: 60 }],
      ] as const)(
        "a pool's first query, in A, opens its socket%s: later callbacks see their own request, and A is collected",
        async (_, options) => {
          const pool = resources.track(new pg.Pool({ ...pgConfig, max: 1, ...options }), (opened) => opened.end());
          const a = await inTrackedRequest('A', (done) => pool.query('SELECT 1', (error) => done(error)));
          const ids = requestIds();
          const viaQuery = await everyRequest(ids, (_, report) => pool.query('SELECT 1', (error) => report(error)));
          const viaClient = await everyRequest(ids, (_, report) =>
            pool.connect((error, client, release) => {
              if (error) return report(error);
              client!.query('SELECT 1', (queryError) => {
                report(queryError);
                release();
              });
            }),
          );
          recordRow(driver, 'lazy pool (socket opened in A): B pool.query(cb)', phase, summarize(viaQuery));
          recordRow(driver, 'lazy pool (socket opened in A): B client.query(cb)', phase, summarize(viaClient));
          expectUnguarded(phase, viaQuery);
          expectUnguarded(phase, viaClient);
          if (canCollect()) {
            const collected = await collectGarbage(a.collected);
            recordRow(driver, `lazy pool${_}: A's values collected after A ended`, phase, collected ? 'yes' : 'no');
            expectCollectedOnlyWithGuard(phase, collected);
          }
          await resources.close(pool);
        },
      );

      it("maxLifetimeSeconds runs out on A's idle client: its acquire runs outside any request", async () => {
        const pool = resources.track(new pg.Pool({ ...pgConfig, max: 1, maxLifetimeSeconds: 2 }), (opened) =>
          opened.end(),
        );
        await inRequest(
          'A',
          () =>
            new Promise<void>((resolve, reject) =>
              pool.query('SELECT 1', (error) => (error ? reject(error) : resolve())),
            ),
        );
        const events: string[] = [];
        pool.on('acquire', () => events.push(`acquire ${seen()}`));
        // pg-pool's lifetime timer takes the idle client, releases it expired, and removes it. Two seconds after the
        // connect: A's one query and release, well before, leave it idle (a busy client is removed unacquired).
        await new Promise<void>((resolve) => pool.once('remove', () => resolve()));
        recordRow(driver, "maxLifetimeSeconds ends A's idle client: pool.on('acquire')", phase, events.join(', '));
        expect(events).toEqual([phase === 'with guard' ? 'acquire none' : 'acquire A']);
        await resources.close(pool);
      });

      // B's connectionTimeoutMillis runs out while pg-pool opens a client for it (A destroyed the one B waited
      // for): B has its error, and pg-pool, once the client is open, takes it and releases it idle.
      it("a waiter that timed out while its client was opened: that client's events outside any request, B collected", async () => {
        let sockets = 0;
        let openedForB = false;
        let openGate!: () => void;
        const gate = new Promise<void>((resolve) => (openGate = resolve));
        // The client opened for B connects only once the gate opens, after B has timed out.
        const stream = () => {
          const socket = new Socket();
          if (sockets++ === 0) return socket;
          openedForB = true;
          const connect = socket.connect.bind(socket) as (...args: unknown[]) => Socket;
          socket.connect = (...args: unknown[]) => {
            void gate.then(() => connect(...args));
            return socket;
          };
          return socket;
        };
        const pool = resources.track(
          new pg.Pool({ ...pgConfig, max: 1, stream, connectionTimeoutMillis: 1_000, idleTimeoutMillis: 60_000 }),
          (opened) => opened.end(),
        );
        const releaseA = await new Promise<(error: Error) => void>((resolve, reject) =>
          inRequest('A', () =>
            pool.connect((error, _client, release) => (error ? reject(error) : resolve((cause) => release(cause)))),
          ),
        );
        const events: string[] = [];
        for (const event of ['connect', 'acquire', 'release'] as const) {
          pool.on(event, () => events.push(`${event} ${seen()}`));
        }
        const b = inTrackedRequest<string>('B', (done) =>
          pool.connect((error) => done(null, error instanceof Error ? error.message : 'no error')),
        );
        // B's queue timer is armed; the client opened for B gets none of its own, which would end the gated
        // connect a second after it started (pg-pool's newClient and pg's Client read this option).
        pool.options.connectionTimeoutMillis = 0;
        inRequest('A', () => releaseA(new Error('A is done with this client')));
        const { value, collected } = await b;
        expect(value).toMatch(/timeout/);
        // pg-pool had started a client for B before B's second ran out (it ends A's first).
        expect(openedForB).toBe(true);
        const released = new Promise<void>((resolve) => pool.once('release', () => resolve()));
        openGate();
        await released;
        recordRow(driver, 'B timed out while its client was opened: its events', phase, events.join(', '));
        // A's own release first, then what pg-pool does with the client opened for B.
        expect(events).toEqual(
          phase === 'with guard'
            ? ['release A', 'connect none', 'acquire none', 'release none']
            : ['release A', 'connect A', 'acquire A', 'release A'],
        );
        // Without the guard B stays reachable too (recorded, not asserted: no run has checked it on every line).
        if (canCollect()) {
          const freed = await collectGarbage(collected);
          recordRow(driver, 'B timed out while its client was opened: B collected', phase, freed ? 'yes' : 'no');
          if (phase === 'with guard') expect(freed).toBe(true);
        }
        await resources.close(pool);
      });

      // pg keeps a client's connect callback for ever (the closure of Client#_connect, pg/lib/client.js), and
      // through it pg-pool's pending item and the first query's own callback. A callback that closes over a
      // promise made in A keeps A's values where promises carry them (the async_hooks implementation: Node 20,
      // 22) unless the guard's binding lets go of the callback after its one call (bindCallback holds it weakly).
      it("the first query's callback closes over a promise made in A: A collected with the guard", async () => {
        const pool = resources.track(new pg.Pool({ ...pgConfig, max: 1 }), (opened) => opened.end());
        const a = await inTrackedRequest('A', (done) => {
          new Promise<void>((resolve, reject) =>
            pool.query('SELECT 1', (error) => (error ? reject(error) : resolve())),
          ).then(() => done(null), done);
        });
        await everyRequest(requestIds(), (_, report) => pool.query('SELECT 1', (error) => report(error)));
        if (canCollect()) {
          const collected = await collectGarbage(a.collected);
          recordRow(
            driver,
            `lazy pool, first callback closes over a promise made in A (${asyncContextImplementation()}): A collected`,
            phase,
            collected ? 'yes' : 'no',
          );
          expectCollectedOnlyWithGuard(phase, collected);
        }
        await resources.close(pool);
      });

      it('a Client connected inside A: its connect callback sees A, later query callbacks their own request', async () => {
        const client = resources.track(new pg.Client(pgConfig), (opened) => opened.end());
        const a = await inTrackedRequest<string>('A', (done) =>
          client.connect((error: Error | undefined) => done(error, seen())),
        );
        // The callback of the call A made runs in A, with or without the guard.
        expect(a.value).toBe('A');
        const results = await everyRequest(requestIds(), (id, report) =>
          client.query('SELECT $1::text AS id', [id], (error) => report(error)),
        );
        recordRow(driver, 'Client connected in A: B client.query(cb)', phase, summarize(results));
        expectUnguarded(phase, results);
        if (canCollect()) {
          const collected = await collectGarbage(a.collected);
          recordRow(
            driver,
            "Client connected in A: A's values collected after A ended",
            phase,
            collected ? 'yes' : 'no',
          );
          expectCollectedOnlyWithGuard(phase, collected);
        }
        await resources.close(client);
      });
    },
  );
});

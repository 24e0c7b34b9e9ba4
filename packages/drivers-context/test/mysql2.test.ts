// mysql2 on the real MariaDB at 127.0.0.1:3306, in two versions: 3.24, which publishes TracingChannel events
// (guardDrivers binds them, and patches getConnection to keep in the request the calls that open no socket), and
// 3.19 (`mysql2-319`), which publishes none (guardDrivers patches it). Each case runs first without the guard, recording what the waiting requests see, then with it,
// where every request must see itself.
import { tracingChannel } from 'node:diagnostics_channel';
import mysql2 from 'mysql2';
import mysql2Promise from 'mysql2/promise';
import mysql2v319 from 'mysql2-319';
import mysql2v319Promise from 'mysql2-319/promise';
import { runInRoot } from '@ambient/core';
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
import { guardDrivers, type GuardDriversOptions } from '@ambient/drivers-context';
import { holdMysql2Connection } from './helpers/hold-connection.js';
import { describeEachPhase, expectCollectedOnlyWithGuard, type Phase } from './helpers/phases.js';
import { describeWithServices, mysqlConfig, versionOf } from './helpers/services.js';

type Mysql2 = typeof mysql2;
type Mysql2Promise = typeof mysql2Promise;

const variants = [
  { driver: versionOf('mysql2'), how: 'TracingChannels', mysql: mysql2, promise: mysql2Promise },
  {
    driver: versionOf('mysql2-319'),
    how: 'patched',
    mysql: mysql2v319 as unknown as Mysql2,
    promise: mysql2v319Promise as unknown as Mysql2Promise,
  },
];

/** What the research found the same on every run and Node version (20 to 26): asserted without the guard. */
function expectUnguarded(phase: Phase, results: Seen): void {
  if (phase === 'without guard') expectNoneSawItself(results);
  else expectEachSawItself(results);
}

const endPool = (pool: mysql2.Pool) => new Promise<void>((resolve) => pool.end(() => resolve()));

/**
 * `pool.getConnection(cb)` in request A: what A's own code saw right after the call returned (`seenAfter`), and
 * what the callback saw (`called`).
 */
async function getConnectionInA(pool: mysql2.Pool) {
  const seenAfter: string[] = [];
  const called = await everyRequest(['A'], (_, report) => {
    pool.getConnection((error, connection) => {
      report(error);
      connection?.release();
    });
    seenAfter.push(seen());
  });
  return { seenAfter, called };
}

for (const { driver, how, mysql, promise } of variants) {
  describeWithServices(['mariadb'], `${driver} (${how}): callbacks run in the request that made the call`, () => {
    const resources = openedResources();
    afterAll(() => resources.closeAll());

    const newPool = () => resources.track(mysql.createPool({ ...mysqlConfig, connectionLimit: 1 }), endPool);

    /** A pool whose one connection was opened at boot, outside any request. */
    async function warmPool(): Promise<mysql2.Pool> {
      const pool = newPool();
      await new Promise<void>((resolve, reject) =>
        runInRoot(() =>
          pool.getConnection((error, connection) => {
            if (error) return reject(error);
            connection.release();
            resolve();
          }),
        ),
      );
      return pool;
    }

    describeEachPhase(
      () => ({ mysql2: mysql }),
      (phase) => {
        const paths: ReadonlyArray<
          readonly [string, (pool: mysql2.Pool, id: string, report: (error: unknown) => void) => void]
        > = [
          [
            'pool.getConnection(cb)',
            (pool, _, report) =>
              pool.getConnection((error, connection) => {
                report(error);
                connection?.release();
              }),
          ],
          ['pool.query(sql, values, cb)', (pool, id, report) => pool.query('SELECT ? AS id', [id], report)],
          ['pool.execute(sql, values, cb)', (pool, id, report) => pool.execute('SELECT ? AS id', [id], report)],
        ];

        for (const releasedFrom of ['query callback', 'own timer'] as const) {
          it.each(paths)(`%s queued behind A, who releases from its ${releasedFrom}`, async (path, call) => {
            const pool = await warmPool();
            const a = holdMysql2Connection(pool, releasedFrom);
            await a.held;
            const results = await everyRequest(requestIds(), (id, report) => call(pool, id, report));
            await a.done;
            recordRow(driver, `${path} queued; A releases from its ${releasedFrom}`, phase, summarize(results));
            expectUnguarded(phase, results);
            await resources.close(pool);
          });
        }

        it('mysql2/promise: getConnection(), query(), execute() queued behind A (right either way)', async () => {
          const pool = resources.track(promise.createPool({ ...mysqlConfig, connectionLimit: 1 }), (opened) =>
            opened.end(),
          );
          await runInRoot(async () => (await pool.getConnection()).release());
          let onHeld!: () => void;
          const held = new Promise<void>((resolve) => (onHeld = resolve));
          const a = inRequest('A', async () => {
            const connection = await pool.getConnection();
            onHeld();
            await connection.query('SELECT SLEEP(0.2)');
            connection.release();
          });
          await held;
          const results = await Promise.all(
            requestIds().map((id) =>
              inRequest(id, async () => {
                const connection = await pool.getConnection();
                const afterGet = [id, seen()] as const;
                await connection.query('SELECT ? AS id', [id]);
                const afterQuery = [id, seen()] as const;
                connection.release();
                await pool.query('SELECT ? AS id', [id]);
                const afterPoolQuery = [id, seen()] as const;
                await pool.execute('SELECT ? AS id', [id]);
                return [afterGet, afterQuery, afterPoolQuery, [id, seen()] as const];
              }),
            ),
          );
          await a;
          const flat = results.flat();
          recordRow(driver, 'mysql2/promise getConnection() / query() / execute() queued', phase, summarize(flat));
          expectEachSawItself(flat);
          await resources.close(pool);
        });
      },
    );
  });

  describeWithServices(
    ['mariadb'],
    `${driver} (${how}): a connection opened by a request keeps none of its values`,
    () => {
      const resources = openedResources();
      afterAll(() => resources.closeAll());
      /** A pool of one connection made at boot (its timers then keep no request), its socket not yet open. */
      const bootPool = () =>
        resources.track(
          runInRoot(() => mysql.createPool({ ...mysqlConfig, connectionLimit: 1 })),
          endPool,
        );

      // mysql2 3.20+ passed in leaves the request where its pool may open a socket (one patched method); not
      // passed in, its channels alone detach every getConnection.
      const guardings: ReadonlyArray<readonly [string, () => GuardDriversOptions]> =
        how === 'TracingChannels'
          ? [
              ['mysql2 passed in', () => ({ mysql2: mysql })],
              ['channels alone', () => ({})],
            ]
          : [['mysql2 passed in', () => ({ mysql2: mysql })]];
      describe.each(guardings)('guarded with %s', (guarding, options) =>
        describeEachPhase(options, (phase) => {
          it("a pool's first query, in A, opens its socket: later callbacks see their own request, and A is collected", async () => {
            const pool = bootPool();
            const a = await inTrackedRequest('A', (done) => pool.query('SELECT 1', (error) => done(error)));
            const ids = requestIds();
            const viaPool = await everyRequest(ids, (_, report) => pool.query('SELECT 1', (error) => report(error)));
            const viaConnection = await everyRequest(ids, (_, report) =>
              pool.getConnection((error, connection) => {
                if (error) return report(error);
                connection.query('SELECT 1', (queryError) => {
                  report(queryError);
                  connection.release();
                });
              }),
            );
            const row = `${driver} (${guarding})`;
            recordRow(row, 'lazy pool (socket opened in A): B pool.query(cb)', phase, summarize(viaPool));
            recordRow(row, 'lazy pool (socket opened in A): B connection.query(cb)', phase, summarize(viaConnection));
            expectUnguarded(phase, viaPool);
            expectUnguarded(phase, viaConnection);
            if (canCollect()) {
              const collected = await collectGarbage(a.collected);
              recordRow(row, "lazy pool: A's values collected after A ended", phase, collected ? 'yes' : 'no');
              expectCollectedOnlyWithGuard(phase, collected);
            }
            await resources.close(pool);
          });

          it('the code after a call that opened a socket runs in its request again, and so does its callback', async () => {
            const pool = bootPool();
            const { seenAfter, called } = await getConnectionInA(pool);
            expect(seenAfter).toEqual(['A']);
            expect(called).toEqual([['A', 'A']]);
            await resources.close(pool);
          });

          // A second copy publishes on the same channels, whose `start` still detaches what the patch does not see.
          if (how === 'TracingChannels' && guarding === 'mysql2 passed in') {
            it('a second copy of mysql2, not passed in, opens its sockets outside requests too', async () => {
              let copy: Mysql2 | undefined;
              jest.isolateModules(() => {
                // eslint-disable-next-line @typescript-eslint/no-require-imports -- a second copy, as a nested dependency loads it
                copy = require('mysql2') as Mysql2;
              });
              expect(copy?.createPool).not.toBe(mysql.createPool);
              const pool = resources.track(
                runInRoot(() => copy!.createPool({ ...mysqlConfig, connectionLimit: 1 })),
                endPool,
              );
              const opened: string[] = [];
              pool.on('connection', () => opened.push(seen()));
              const a = await everyRequest(['A'], (_, report) => pool.query('SELECT 1', (error) => report(error)));
              expect(a).toEqual([['A', 'A']]);
              expect(opened).toEqual([phase === 'with guard' ? 'none' : 'A']);
              await resources.close(pool);
            });

            it("a call that stays in its request passes nothing on: an 'acquire' listener's own pool still opens outside it", async () => {
              const warm = await new Promise<mysql2.Pool>((resolve, reject) => {
                const made = bootPool();
                runInRoot(() =>
                  made.getConnection((error, connection) => {
                    if (error) return reject(error);
                    connection.release();
                    resolve(made);
                  }),
                );
              });
              const cold = bootPool();
              const opened: string[] = [];
              cold.on('connection', () => opened.push(seen()));
              // The warm pool hands out its free connection inside A and emits 'acquire' there, synchronously.
              warm.once('acquire', () => cold.getConnection((_, connection) => connection?.release()));
              const a = await everyRequest(['A'], (_, report) =>
                warm.getConnection((error, connection) => {
                  report(error);
                  connection?.release();
                }),
              );
              expect(a).toEqual([['A', 'A']]);
              await new Promise<void>((resolve) => {
                const wait = () => (opened.length > 0 ? resolve() : setTimeout(wait, 10));
                wait();
              });
              expect(opened).toEqual([phase === 'with guard' ? 'none' : 'A']);
              await resources.close(cold);
              await resources.close(warm);
            });
          }

          it('A destroys the connection B waits for: the pool opens a new socket outside any request, and calls B back in B', async () => {
            const pool = bootPool();
            const opened: string[] = [];
            pool.on('connection', () => opened.push(seen()));
            const a = holdMysql2Connection(pool, 'destroy');
            await a.held;
            const waiting = await everyRequest(['B'], (_, report) =>
              pool.getConnection((error, connection) => {
                report(error);
                connection?.release();
              }),
            );
            await a.done;
            const row = `${driver} (${guarding})`;
            recordRow(row, "B waits; A destroys the connection: B's callback", phase, summarize(waiting));
            recordRow(row, "B waits; A destroys the connection: pool.on('connection')", phase, opened.join(', '));
            expectUnguarded(phase, waiting);
            expect(opened).toEqual(phase === 'with guard' ? ['none', 'none'] : ['A', 'A']);
            await resources.close(pool);
          });
        }),
      );
    },
  );
}

describeWithServices(
  ['mariadb'],
  `${versionOf('mysql2')}: dispose() from inside a call the guard took out of its request`,
  () => {
    it("the caller's code after the call runs in its request again", async () => {
      const guard = guardDrivers({ mysql2 });
      const pool = runInRoot(() => mysql2.createPool({ ...mysqlConfig, connectionLimit: 1 }));
      // Subscribed after the guard's own `start`, so it runs inside the detached call, as a listener could.
      const start = tracingChannel('mysql2:pool:connect').start;
      const disposeInside = () => guard.dispose();
      start.subscribe(disposeInside);
      try {
        const { seenAfter, called } = await getConnectionInA(pool);
        expect(seenAfter).toEqual(['A']);
        // Its callback comes once; with the guard gone, from wherever mysql2 calls it (here the new socket's none).
        expect(called).toHaveLength(1);
      } finally {
        start.unsubscribe(disposeInside);
        guard.dispose();
        await endPool(pool);
      }
    });
  },
);

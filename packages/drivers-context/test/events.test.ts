// Events of pools, clients and knex on the real servers: which request a listener runs in. Pool and socket
// events run in whatever drives the pool or opened the socket; guardDrivers promises nothing about them, but
// what they see is asserted cell by cell, so that the README's events table (the one below) stays true. knex's `query` event and an awaited builder run in the request (promises),
// which is asserted.
//
// | driver        | event (A opens the socket, B waits)   | without guard | with guard |
// |---------------|---------------------------------------|---------------|------------|
// | pg 8.23       | pool.on('connect')                    | A             | A          |
// | pg 8.23       | pool.on('acquire'), A's, B's, C's     | A, A, A       | A, B, C    |
// | pg 8.23       | pool.on('error') (idle, A's socket)   | A             | none       |
// | mysql2 3.24   | pool.on('connection')                 | A             | none       |
// | mysql2 3.24   | pool.on('acquire'), A's, then C's     | A, C          | none, C    |
// | mysql2 3.24   | pool.on('enqueue')                    | B             | B          |
// | mysql2 3.19   | the same three                        | the same      | the same   |
// | mysql2 3.24,  | pool.on('connection')                 | A             | none       |
// | channels alone| pool.on('acquire'), A's, then C's     | A, C          | none, none |
// | (not passed)  | pool.on('enqueue')                    | B             | none       |
// | ioredis 6     | client.on('ready') (first command, A) | A             | none       |
// | node-redis 6  | client.on('ready') (connect() in A)   | A             | none       |
// | ioredis 6     | subscriber.on('message'), B publishes | A             | none       |
// | node-redis 6  | subscribe(channel, listener): the same | A            | none       |
// | knex 3 (pg)   | knex.on('query'), B's awaited builder | each B        | each B     |
// | knex 3 (pg)   | knex.on('query-response'), the same   | each B        | each B     |
// | knex 3 (pg)   | await knex.raw() queued behind A      | each B        | each B     |
// (20 B requests at once for knex; one for the pools; for pg, C waits behind B; for mysql2, C takes the connection
// once it is free.) With the guard, pg-pool emits a waiting request's `acquire` in that request, and a mysql2
// getConnection that may open a socket runs outside any request, so its events see none;
// one that takes a free connection (C) or waits for one (B) stays in its request. Through mysql2's channels
// alone (`guardDrivers()` without the module) every getConnection runs outside any request.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import knexFactory, { type Knex } from 'knex';
import mysql2 from 'mysql2';
import mysql2v319 from 'mysql2-319';
import pg from 'pg';
import * as redis from 'redis';
import { runInRoot } from '@ambient/core';
import { guardDrivers, type DriverGuard } from '@ambient/drivers-context';
import {
  expectEachSawItself,
  inRequest,
  openedResources,
  recordRow,
  requestIds,
  seen,
  summarize,
  type Seen,
} from './helpers/requests.js';
import { holdMysql2Connection, holdPgConnection } from './helpers/hold-connection.js';
import { phases, type Phase } from './helpers/phases.js';
import { describeWithServices, mysqlConfig, pgConfig, redisConfig, redisUrl, versionOf } from './helpers/services.js';

/** A pub/sub channel of this run only. */
const pubSubChannel = `ambient-drivers-jest-${randomUUID()}:events`;

/** Each event's listener calls, in order, as the request each ran in. */
type Observed = Record<string, string[]>;

function listen(emitter: { on(event: string, listener: () => void): unknown }, events: readonly string[]): Observed {
  const observed: Observed = {};
  for (const event of events) {
    observed[event] = [];
    emitter.on(event, () => observed[event]!.push(seen()));
  }
  return observed;
}

/** The rows of the table above, which the README repeats: each is asserted. */
const documented: ReadonlyArray<readonly [driver: string, event: string, phase: Phase, saw: string]> = [
  ['pg', "pool.on('connect')", 'without guard', 'A'],
  ['pg', "pool.on('acquire')", 'without guard', 'A, A, A'],
  ['pg', "pool.on('connect')", 'with guard', 'A'],
  ['pg', "pool.on('acquire')", 'with guard', 'A, B, C'],
  ['mysql2 3.24', "pool.on('connection')", 'without guard', 'A'],
  ['mysql2 3.24', "pool.on('acquire')", 'without guard', 'A, C'],
  ['mysql2 3.24', "pool.on('enqueue')", 'without guard', 'B'],
  ['mysql2 3.24', "pool.on('connection')", 'with guard', 'none'],
  ['mysql2 3.24', "pool.on('acquire')", 'with guard', 'none, C'],
  ['mysql2 3.24', "pool.on('enqueue')", 'with guard', 'B'],
  ['mysql2 3.19', "pool.on('connection')", 'without guard', 'A'],
  ['mysql2 3.19', "pool.on('acquire')", 'without guard', 'A, C'],
  ['mysql2 3.19', "pool.on('enqueue')", 'without guard', 'B'],
  ['mysql2 3.19', "pool.on('connection')", 'with guard', 'none'],
  ['mysql2 3.19', "pool.on('acquire')", 'with guard', 'none, C'],
  ['mysql2 3.19', "pool.on('enqueue')", 'with guard', 'B'],
  ['mysql2 3.24, channels alone', "pool.on('connection')", 'without guard', 'A'],
  ['mysql2 3.24, channels alone', "pool.on('acquire')", 'without guard', 'A, C'],
  ['mysql2 3.24, channels alone', "pool.on('enqueue')", 'without guard', 'B'],
  ['mysql2 3.24, channels alone', "pool.on('connection')", 'with guard', 'none'],
  ['mysql2 3.24, channels alone', "pool.on('acquire')", 'with guard', 'none, none'],
  ['mysql2 3.24, channels alone', "pool.on('enqueue')", 'with guard', 'none'],
  ['ioredis', "client.on('ready')", 'without guard', 'A'],
  ['ioredis', "client.on('ready')", 'with guard', 'none'],
  ['node-redis', "client.on('ready')", 'without guard', 'A'],
  ['node-redis', "client.on('ready')", 'with guard', 'none'],
  ['pg', "pool.on('error')", 'without guard', 'A'],
  ['pg', "pool.on('error')", 'with guard', 'none'],
  ['ioredis', "subscriber.on('message')", 'without guard', 'A'],
  ['ioredis', "subscriber.on('message')", 'with guard', 'none'],
  ['node-redis', 'subscribe(channel, listener)', 'without guard', 'A'],
  ['node-redis', 'subscribe(channel, listener)', 'with guard', 'none'],
];

describeWithServices(['postgres', 'mariadb', 'redis'], 'events of pools, clients and knex', () => {
  const resources = openedResources();
  afterAll(() => resources.closeAll());

  /** pg: A opens the pool's one connection and holds it; B waits for it (callback), C behind B (promise). */
  async function pgPoolEvents(): Promise<Observed> {
    const pool = resources.track(new pg.Pool({ ...pgConfig, max: 1 }), (opened) => opened.end());
    const observed = listen(pool, ['connect', 'acquire']);
    const { held, done: a } = holdPgConnection(pool, 'query callback');
    await held;
    const b = new Promise<void>((resolve, reject) =>
      inRequest('B', () =>
        pool.connect((error, _client, release) => {
          release();
          if (error) reject(error);
          else resolve();
        }),
      ),
    );
    // C waits behind B, promise style: pg-pool queues it as it does a callback.
    const c = inRequest('C', async () => (await pool.connect()).release());
    await Promise.all([a, b, c]);
    await resources.close(pool);
    return observed;
  }

  /** mysql2: A opens the pool's one connection and holds it; B waits for it; then C takes it, free. */
  async function mysqlPoolEvents(mysql: typeof mysql2): Promise<Observed> {
    const pool = resources.track(
      runInRoot(() => mysql.createPool({ ...mysqlConfig, connectionLimit: 1 })),
      (opened) => new Promise<void>((resolve) => opened.end(() => resolve())),
    );
    const observed = listen(pool, ['connection', 'acquire', 'enqueue']);
    const { held, done: a } = holdMysql2Connection(pool, 'query callback');
    await held;
    await new Promise<void>((resolve, reject) =>
      inRequest('B', () =>
        pool.getConnection((error, connection) => {
          connection?.release();
          if (error) reject(error);
          else resolve();
        }),
      ),
    );
    await a;
    await new Promise<void>((resolve, reject) =>
      inRequest('C', () =>
        pool.getConnection((error, connection) => {
          connection?.release();
          if (error) reject(error);
          else resolve();
        }),
      ),
    );
    await resources.close(pool);
    return observed;
  }

  /** ioredis: a lazy client made at boot, whose first command (A's) opens the socket. */
  async function ioredisEvents(): Promise<Observed> {
    const client = resources.track(
      runInRoot(() => new Redis({ ...redisConfig, lazyConnect: true })),
      (opened) => opened.quit(),
    );
    const observed = listen(client, ['ready']);
    await new Promise<void>((resolve, reject) => {
      void inRequest('A', () => client.ping((error) => (error ? reject(error) : resolve())));
    });
    await resources.close(client);
    return observed;
  }

  /** node-redis: a client made at boot, connected by A. */
  async function nodeRedisEvents(): Promise<Observed> {
    const client = resources.track(
      runInRoot(() => redis.createClient({ url: redisUrl })),
      (opened) => (opened.isOpen ? opened.quit() : undefined),
    );
    const observed = listen(client, ['ready']);
    client.on('error', () => undefined);
    await inRequest('A', () => client.connect());
    await resources.close(client);
    return observed;
  }

  /** pg: A's query opens the pool's one connection; the server then ends it while it sits idle in the pool. */
  async function pgPoolErrorEvents(): Promise<Observed> {
    const pool = resources.track(new pg.Pool({ ...pgConfig, max: 1 }), (opened) => opened.end());
    const observed = listen(pool, ['error']);
    const errored = new Promise<void>((resolve) => pool.once('error', () => resolve()));
    const pid = await new Promise<number>((resolve, reject) =>
      inRequest('A', () =>
        pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid', (error, result) =>
          error ? reject(error) : resolve(result.rows[0]!.pid),
        ),
      ),
    );
    const admin = new pg.Client(pgConfig);
    await runInRoot(() => admin.connect());
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    await admin.end();
    await errored;
    await resources.close(pool);
    return observed;
  }

  /** ioredis: a lazy subscriber whose first command, A's SUBSCRIBE, opens its socket; B publishes. */
  async function ioredisMessages(): Promise<Observed> {
    const subscriber = resources.track(
      runInRoot(() => new Redis({ ...redisConfig, lazyConnect: true })),
      (opened) => opened.quit(),
    );
    const publisher = resources.track(
      runInRoot(() => new Redis(redisConfig)),
      (opened) => opened.quit(),
    );
    const observed = listen(subscriber, ['message']);
    const received = new Promise<void>((resolve) => subscriber.once('message', () => resolve()));
    await new Promise<void>((resolve, reject) => {
      void inRequest('A', () => subscriber.subscribe(pubSubChannel, (error) => (error ? reject(error) : resolve())));
    });
    await inRequest('B', () => publisher.publish(pubSubChannel, 'hello'));
    await received;
    await resources.close(subscriber);
    await resources.close(publisher);
    return observed;
  }

  /** node-redis: a client made at boot, connected by A, which subscribes a listener; B publishes. */
  async function nodeRedisMessages(): Promise<Observed> {
    const subscriber = resources.track(
      runInRoot(() => redis.createClient({ url: redisUrl })),
      (opened) => (opened.isOpen ? opened.quit() : undefined),
    );
    const publisher = resources.track(
      runInRoot(() => redis.createClient({ url: redisUrl })),
      (opened) => (opened.isOpen ? opened.quit() : undefined),
    );
    await runInRoot(() => publisher.connect());
    const observed: Observed = { message: [] };
    let onMessage!: () => void;
    const received = new Promise<void>((resolve) => (onMessage = resolve));
    await inRequest('A', async () => {
      await subscriber.connect();
      await subscriber.subscribe(pubSubChannel, () => {
        observed['message']!.push(seen());
        onMessage();
      });
    });
    await inRequest('B', () => publisher.publish(pubSubChannel, 'hello'));
    await received;
    await resources.close(subscriber);
    await resources.close(publisher);
    return observed;
  }

  for (const phase of phases) {
    describe(phase, () => {
      let guard: DriverGuard | undefined;
      const observed = new Map<string, string>();
      beforeAll(async () => {
        if (phase === 'with guard') guard = guardDrivers({ pg, mysql2, redis });
        const cells = (driver: string, events: Observed, names: Record<string, string>) => {
          for (const [event, label] of Object.entries(names))
            observed.set(`${driver} ${label}`, events[event]!.join(', '));
        };
        cells('pg', await pgPoolEvents(), { connect: "pool.on('connect')", acquire: "pool.on('acquire')" });
        cells('pg', await pgPoolErrorEvents(), { error: "pool.on('error')" });
        const mysqlEvents = {
          connection: "pool.on('connection')",
          acquire: "pool.on('acquire')",
          enqueue: "pool.on('enqueue')",
        };
        cells('mysql2 3.24', await mysqlPoolEvents(mysql2), mysqlEvents);
        guard?.dispose();
        // Not passed in: its channels alone detach, on every getConnection.
        if (phase === 'with guard') guard = guardDrivers({ pg, redis });
        cells('mysql2 3.24, channels alone', await mysqlPoolEvents(mysql2), mysqlEvents);
        guard?.dispose();
        // mysql2 3.19 publishes no channels: guarded by patching, which takes the module.
        if (phase === 'with guard') guard = guardDrivers({ pg, mysql2: mysql2v319 as unknown as typeof mysql2, redis });
        cells('mysql2 3.19', await mysqlPoolEvents(mysql2v319 as unknown as typeof mysql2), mysqlEvents);
        cells('ioredis', await ioredisEvents(), { ready: "client.on('ready')" });
        cells('node-redis', await nodeRedisEvents(), { ready: "client.on('ready')" });
        cells('ioredis', await ioredisMessages(), { message: "subscriber.on('message')" });
        cells('node-redis', await nodeRedisMessages(), { message: 'subscribe(channel, listener)' });
      });
      afterAll(() => guard?.dispose());

      it.each(documented.filter((row) => row[2] === phase))(
        '%s %s, %s: recorded (README table: %s)',
        (driver, event, _, saw) => {
          const cell = observed.get(`${driver} ${event}`);
          expect(cell).toBeDefined();
          recordRow(driver, event, phase, cell!);
          // The README's events table is this one: a run that sees something else fails, so the table cannot
          // go stale. Every cell was the same on Node 20 to 26 in every run so far.
          expect(cell).toBe(saw);
        },
      );

      describe('knex 3 with pg', () => {
        let knex: Knex;
        const queryEvents: Array<readonly [id: string, saw: string]> = [];
        const responseEvents: Array<readonly [id: string, saw: string]> = [];
        let onHeld: (() => void) | undefined;
        beforeAll(async () => {
          knex = resources.track(
            runInRoot(() => knexFactory({ client: 'pg', connection: { ...pgConfig }, pool: { min: 0, max: 1 } })),
            (opened) => opened.destroy(),
          );
          knex.on('query', (query: { bindings?: unknown[]; sql: string }) => {
            if (query.sql.includes('pg_sleep')) onHeld?.();
            const id = query.bindings?.[0];
            if (typeof id === 'string') queryEvents.push([id, seen()]);
          });
          knex.on('query-response', (_response: unknown, query: { bindings?: unknown[] }) => {
            const id = query.bindings?.[0];
            if (typeof id === 'string') responseEvents.push([id, seen()]);
          });
          await runInRoot(() => knex.raw('SELECT 1'));
        });

        it("knex.on('query') and each awaited builder queued behind A run in their own request", async () => {
          const held = new Promise<void>((resolve) => (onHeld = resolve));
          const a = inRequest('A', () => knex.raw('SELECT pg_sleep(0.2)').then(() => seen()));
          await held;
          const awaited: Seen = await Promise.all(
            requestIds().map((id) =>
              inRequest(id, async () => {
                await knex.raw('SELECT ?::text AS id', [id]);
                return [id, seen()] as const;
              }),
            ),
          );
          expect(await a).toBe('A');
          const driver = versionOf('knex');
          recordRow(driver, "knex.on('query') for B's awaited builder", phase, summarize(queryEvents));
          recordRow(driver, "knex.on('query-response') for B's awaited builder", phase, summarize(responseEvents));
          recordRow(driver, 'await knex.raw() queued behind A', phase, summarize(awaited));
          expect(queryEvents).toHaveLength(20);
          expectEachSawItself(queryEvents);
          expectEachSawItself(awaited);
          await resources.close(knex);
        });
      });
    });
  }
});

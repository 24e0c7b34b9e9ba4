// The opt-in query log on the real servers: guardDrivers({ pg, onQuery: queryLogListener(logger) }) with a pino
// logger whose mixin is correlationMixin(), writing to a file read back here. One line per query or command,
// with the request's id and the statement, never a parameter value: every query carries 'secret-42' and 7919
// inline and 'secret-43' as a parameter, and no line may hold any of them.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import mysql2 from 'mysql2';
import mysql2Promise from 'mysql2/promise';
import mysql2v319 from 'mysql2-319';
import mysql2v319Promise from 'mysql2-319/promise';
import pg from 'pg';
import { pino } from 'pino';
import * as redis from 'redis';
import { runInRoot } from '@ambient/core';
import { guardDrivers, queryLogListener, type DriverGuard } from '@ambient/drivers-context';
import { correlationMixin } from '@ambient/pino-context';
import { everyRequest, expectEachSawItself, inRequest, openedResources, requestIds } from './helpers/requests.js';
import { describeWithServices, mysqlConfig, pgConfig, redisConfig, redisUrl } from './helpers/services.js';

interface LogLine {
  level: number;
  msg: string;
  requestId?: string;
  db: { system: string; driver: string; statement: string; durationMs: number };
}

const directory = mkdtempSync(join(tmpdir(), 'ambient-drivers-query-log-'));
const logFile = join(directory, 'queries.log');
const logger = pino({ mixin: correlationMixin() }, pino.destination({ dest: logFile, sync: true }));

/** The raw lines written so far for request `requestId` (JSON text, to look for secrets anywhere in it). */
function rawLinesOf(requestId: string): string[] {
  return readFileSync(logFile, 'utf8')
    .split('\n')
    .filter((line) => line !== '' && (JSON.parse(line) as LogLine).requestId === requestId);
}

/** Exactly one line was written for `requestId`, and no secret anywhere in it: that line. */
function onlyLineOf(requestId: string): LogLine {
  const lines = rawLinesOf(requestId);
  expect(lines).toHaveLength(1);
  expect(lines[0]).not.toMatch(/secret-4[23]/);
  const line = JSON.parse(lines[0]!) as LogLine;
  // An inline number is a value too (the raw line has numbers of its own: time, pid).
  expect(line.db.statement).not.toContain('7919');
  return line;
}

const pgStatement = "SELECT $1::text AS a, 'secret-42' AS b, 7919 AS c";
const pgLogged = 'SELECT $1::text AS a, ? AS b, ? AS c';
const mysqlStatement = "SELECT ? AS a, 'secret-42' AS b, 7919 AS c";
const mysqlLogged = 'SELECT ? AS a, ? AS b, ? AS c';
const key = `ambient-drivers-jest-${randomUUID()}:secret-42`;

let guard: DriverGuard;
beforeAll(() => {
  // mysql2 3.24 reports through its channels whatever module is passed; 3.19, passed in, is patched.
  guard = guardDrivers({ pg, mysql2: mysql2v319 as unknown as typeof mysql2, onQuery: queryLogListener(logger) });
});
afterAll(() => {
  guard.dispose();
  rmSync(directory, { recursive: true, force: true });
});

describeWithServices(['postgres'], 'query log: pg (patched)', () => {
  const resources = openedResources();
  let pool: pg.Pool;
  beforeAll(async () => {
    pool = resources.track(new pg.Pool({ ...pgConfig, max: 1 }), (opened) => opened.end());
    await runInRoot(async () => (await pool.connect()).release());
  });
  afterAll(() => resources.closeAll());

  it('pool.query(text, values, cb): one info line with the request id and the statement, no values', async () => {
    await new Promise<void>((resolve, reject) =>
      inRequest('pg-callback', () =>
        pool.query(pgStatement, ['secret-43'], (error) => (error ? reject(error) : resolve())),
      ),
    );
    const line = onlyLineOf('pg-callback');
    expect(line).toMatchObject({
      level: 30,
      msg: 'query',
      db: { system: 'postgresql', driver: 'pg', statement: pgLogged },
    });
    expect(line.db.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('promise styles: client.query({ text, values }) and pool.query(text, values)', async () => {
    await inRequest('pg-promise-client', async () => {
      const client = await pool.connect();
      try {
        await client.query({ text: pgStatement, values: ['secret-43'] });
      } finally {
        client.release();
      }
    });
    await inRequest('pg-promise-pool', () => pool.query(pgStatement, ['secret-43']));
    for (const requestId of ['pg-promise-client', 'pg-promise-pool']) {
      expect(onlyLineOf(requestId)).toMatchObject({ level: 30, db: { statement: pgLogged } });
    }
  });

  it('a failing query: a warn line, and the error reaches the caller as pg made it', async () => {
    const failing = "SELECT * FROM ambient_no_such_table WHERE secret = 'secret-42' AND n = $1";
    const viaCallback = await new Promise<unknown>((resolve) =>
      inRequest('pg-fails-callback', () => pool.query(failing, ['secret-43'], (error) => resolve(error))),
    );
    const viaPromise = await inRequest('pg-fails-promise', async () => {
      const client = await pool.connect();
      try {
        return await client.query(failing, ['secret-43']).then(
          () => undefined,
          (error: unknown) => error,
        );
      } finally {
        client.release();
      }
    });
    for (const error of [viaCallback, viaPromise]) {
      expect(error).toBeInstanceOf(pg.DatabaseError);
      expect(error).toMatchObject({ code: '42P01', severity: 'ERROR' });
    }
    for (const requestId of ['pg-fails-callback', 'pg-fails-promise']) {
      expect(onlyLineOf(requestId)).toMatchObject({
        level: 40,
        msg: 'query failed',
        db: { statement: 'SELECT * FROM ambient_no_such_table WHERE secret = ? AND n = $1' },
      });
    }
  });

  it('20 requests queued on one connection: each line carries its own request id', async () => {
    const ids = requestIds(20, 'pg-queued-');
    const results = await everyRequest(ids, (_, report) => pool.query(pgStatement, ['secret-43'], report));
    expectEachSawItself(results);
    for (const id of ids) expect(onlyLineOf(id).db.statement).toBe(pgLogged);
  });

  it('a Submittable (pg.Query) passes through, unreported', async () => {
    const client = await pool.connect();
    try {
      await inRequest(
        'pg-submittable',
        () =>
          new Promise<void>((resolve, reject) => {
            const query = client.query(new pg.Query('SELECT 1'));
            query.on('end', () => resolve());
            query.on('error', reject);
          }),
      );
    } finally {
      client.release();
    }
    expect(rawLinesOf('pg-submittable')).toEqual([]);
  });
});

describeWithServices(['redis'], 'query log: ioredis and node-redis (TracingChannels)', () => {
  const resources = openedResources();
  afterAll(() => resources.closeAll());

  it('ioredis: the command name, never its key or value; a failing command at warn', async () => {
    const client = resources.track(
      runInRoot(() => new Redis(redisConfig)),
      (opened) => opened.quit(),
    );
    await runInRoot(() => client.ping());
    await new Promise<void>((resolve, reject) => {
      void inRequest('ioredis-set', () => client.set(key, 'secret-43', (error) => (error ? reject(error) : resolve())));
    });
    await inRequest('ioredis-get', () => client.get(key));
    const failed = await inRequest('ioredis-fails', () =>
      client.incr(key).then(
        () => undefined,
        (error: unknown) => error,
      ),
    );
    expect(failed).toBeInstanceOf(Error);
    expect(onlyLineOf('ioredis-set')).toMatchObject({
      level: 30,
      db: { system: 'redis', driver: 'ioredis', statement: 'SET' },
    });
    expect(onlyLineOf('ioredis-get').db.statement).toBe('GET');
    expect(onlyLineOf('ioredis-fails')).toMatchObject({ level: 40, db: { statement: 'INCR' } });
    await runInRoot(() => client.del(key));
    await resources.close(client);
  });

  it('node-redis: the command name, never its key or value', async () => {
    const client = resources.track(
      runInRoot(() => redis.createClient({ url: redisUrl })),
      (opened) => (opened.isOpen ? opened.quit() : undefined),
    );
    await runInRoot(() => client.connect());
    await inRequest('node-redis-set', () => client.set(key, 'secret-43'));
    await inRequest('node-redis-get', () => client.get(key));
    expect(onlyLineOf('node-redis-set')).toMatchObject({
      level: 30,
      db: { system: 'redis', driver: 'node-redis', statement: 'SET' },
    });
    expect(onlyLineOf('node-redis-get').db.statement).toBe('GET');
    await runInRoot(() => client.del(key));
    await resources.close(client);
  });
});

/**
 * mysql2 3.24 reports through its TracingChannels, 3.19 through the patched Connection#query/#execute (guarded by
 * the module passed in above): the same cases, the same lines. What only the patch has to handle follows them.
 */
const mysqlVersions = [
  { label: 'mysql2 3.24 (TracingChannels)', prefix: 'mysql324', mysql: mysql2, promise: mysql2Promise, patched: false },
  {
    label: 'mysql2 3.19 (patched)',
    prefix: 'mysql319',
    mysql: mysql2v319 as unknown as typeof mysql2,
    promise: mysql2v319Promise as unknown as typeof mysql2Promise,
    patched: true,
  },
];

for (const version of mysqlVersions) {
  describeWithServices(['mariadb'], `query log: ${version.label}`, () => {
    const resources = openedResources();
    const id = (name: string) => `${version.prefix}-${name}`;
    let pool: mysql2.Pool;
    let promisePool: mysql2Promise.Pool;
    beforeAll(() => {
      pool = resources.track(
        runInRoot(() => version.mysql.createPool({ ...mysqlConfig, connectionLimit: 1 })),
        (opened) => new Promise<void>((resolve) => opened.end(() => resolve())),
      );
      promisePool = resources.track(
        runInRoot(() => version.promise.createPool({ ...mysqlConfig, connectionLimit: 1 })),
        (opened) => opened.end(),
      );
    });
    afterAll(() => resources.closeAll());

    it('pool.query(cb), pool.execute(cb), connection.query(sql, values, cb): no value mysql2 writes in is logged', async () => {
      for (const method of ['query', 'execute', 'connection'] as const) {
        await new Promise<void>((resolve, reject) =>
          inRequest(id(method), () => {
            const callback = (error: Error | null) => (error ? reject(error) : resolve());
            if (method === 'query') pool.query(mysqlStatement, ['secret-43'], callback);
            else if (method === 'execute') pool.execute(mysqlStatement, ['secret-43'], callback);
            else
              pool.getConnection((error, connection) => {
                if (error) return reject(error);
                connection.query(mysqlStatement, ['secret-43'], (failure: Error | null) => {
                  connection.release();
                  callback(failure);
                });
              });
          }),
        );
        expect(onlyLineOf(id(method))).toMatchObject({
          level: 30,
          msg: 'query',
          db: { system: 'mysql', driver: 'mysql2', statement: mysqlLogged },
        });
      }
    });

    it('mysql2/promise, 20 requests queued on one connection, and failures at warn (a bad table, a bad prepare)', async () => {
      const ids = requestIds(20, id('promise-'));
      await Promise.all(ids.map((each) => inRequest(each, () => promisePool.query(mysqlStatement, ['secret-43']))));
      for (const each of ids) expect(onlyLineOf(each).db.statement).toBe(mysqlLogged);
      for (const [name, sql, code] of [
        ['fails', "SELECT * FROM ambient_no_such_table WHERE secret = 'secret-42'", 'ER_NO_SUCH_TABLE'],
        // A prepare that fails calls execute's callback straight from the prepare (lib/base/connection.js).
        ['bad-prepare', "SELEC 'secret-42'", 'ER_PARSE_ERROR'],
      ] as const) {
        const error = await inRequest(id(name), () =>
          promisePool.execute(sql).then(
            () => undefined,
            (failure: unknown) => failure,
          ),
        );
        expect(error).toMatchObject({ code });
        expect(onlyLineOf(id(name))).toMatchObject({ level: 40, msg: 'query failed' });
      }
    });

    // What only the patch must handle; mysql2 3.20+ reports these paths through its channels itself.
    if (version.patched) {
      it('a query on a closed connection, whose callback mysql2 calls before returning: one warn line', async () => {
        const connection = runInRoot(() => version.mysql.createConnection(mysqlConfig));
        await new Promise<void>((resolve, reject) =>
          connection.query('SELECT 1', (error) => (error ? reject(error) : resolve())),
        );
        connection.destroy();
        const error = await inRequest(
          id('closed'),
          () => new Promise<unknown>((resolve) => connection.query(mysqlStatement, ['secret-43'], resolve)),
        );
        expect(error).toMatchObject({ message: expect.stringContaining('closed state') as unknown });
        expect(onlyLineOf(id('closed'))).toMatchObject({
          level: 40,
          msg: 'query failed',
          db: { statement: mysqlLogged },
        });
      });

      it('a query read as events (no callback): one line at its end, failed where it emitted an error', async () => {
        const connection = await new Promise<mysql2.PoolConnection>((resolve, reject) =>
          pool.getConnection((error, opened) => (error ? reject(error) : resolve(opened))),
        );
        try {
          const rows = await inRequest(
            id('events'),
            () =>
              new Promise<number>((resolve, reject) => {
                let count = 0;
                connection
                  .query(mysqlStatement, ['secret-43'])
                  .on('result', () => count++)
                  .on('error', reject)
                  .on('end', () => resolve(count));
              }),
          );
          expect(rows).toBe(1);
          expect(onlyLineOf(id('events')).db.statement).toBe(mysqlLogged);
          const error = await inRequest(
            id('events-fail'),
            () =>
              new Promise<unknown>((resolve) => {
                connection.query('SELECT * FROM ambient_no_such_table').on('error', resolve);
              }),
          );
          expect(error).toMatchObject({ code: 'ER_NO_SUCH_TABLE' });
          expect(onlyLineOf(id('events-fail'))).toMatchObject({ level: 40, msg: 'query failed' });
        } finally {
          connection.release();
        }
      });
    }
  });
}

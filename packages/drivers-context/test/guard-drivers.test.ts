// guardDrivers() itself: its options, one guard per process, what it reports, that dispose() puts everything
// back, detachConnections: false, and a query listener that throws. Where a driver's behaviour is the point,
// on the real servers; the wrapper's own branches also with small stand-in classes (pure helpers).
import { tracingChannel } from 'node:diagnostics_channel';
import { Redis } from 'ioredis';
import mysql2 from 'mysql2';
import mysql2v319 from 'mysql2-319';
import pg from 'pg';
import * as redis from 'redis';
import { AmbientError, runInRoot } from '@ambient/core';
import type * as drivers from '@ambient/drivers-context';
import { guardDrivers, queryLogListener, type DriverGuard, type QueryEvent } from '@ambient/drivers-context';
import { everyRequest, expectEachSawItself, inRequest, openedResources, requestIds, seen } from './helpers/requests.js';
import { describeWithServices, mysqlConfig, pgConfig, redisConfig } from './helpers/services.js';

function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

function expectCode(fn: () => unknown, code: string): void {
  const error = thrownBy(fn);
  expect(error).toBeInstanceOf(AmbientError);
  expect((error as AmbientError).code).toBe(code);
}

/** The prototype that owns `name`, as guardDrivers patches it (pg.Pool's connect is pg-pool's). */
function ownerOf(start: object, name: string): Record<string, unknown> {
  let owner: object | null = start;
  while (owner !== null && !Object.prototype.hasOwnProperty.call(owner, name)) owner = Object.getPrototypeOf(owner);
  if (owner === null) throw new Error(`no ${name}`);
  return owner as Record<string, unknown>;
}

const allChannels = ['mysql2:query', 'mysql2:execute', 'mysql2:pool:connect', 'ioredis:connect', 'node-redis:connect'];
const pgMethods = [
  [pg.Pool.prototype, 'connect'],
  [pg.Pool.prototype, 'query'],
  [pg.Client.prototype, 'query'],
  [pg.Client.prototype, 'connect'],
  [pg.Pool.prototype, 'newClient'],
  [pg.Pool.prototype, '_afterConnect'],
  [pg.Pool.prototype, '_acquireClient'],
] as const;

/** Every test leaves no guard behind, whatever it asserted. */
let active: DriverGuard[] = [];
function guard(options?: drivers.GuardDriversOptions): DriverGuard {
  const made = guardDrivers(options);
  active.push(made);
  return made;
}
afterEach(() => {
  for (const made of active) made.dispose();
  active = [];
});

describe('options', () => {
  it.each([
    ['an unknown key', { pgg: pg }],
    ['a channels entry that is no driver with channels', { channels: ['mysql2', 'pg'] }],
    ['channels that is no array', { channels: 'mysql2' }],
    ['a module that is no object', { pg: 42 }],
    ['a detachConnections that is no boolean', { detachConnections: 'yes' }],
    ['an onQuery that is no function', { onQuery: 'log' }],
    ['options that are no object', 42],
  ])('%s: ERR_AMBIENT_DRIVERS_INVALID_OPTION, and no guard is left on', (_, options) => {
    expectCode(() => guardDrivers(options as never), 'ERR_AMBIENT_DRIVERS_INVALID_OPTION');
    guard().dispose();
  });

  it('queryLogListener(logger) takes a logger with info() and warn(): ERR_AMBIENT_DRIVERS_INVALID_ARGUMENT', () => {
    for (const logger of [undefined, null, 'pino', {}, { info: 1 }]) {
      expectCode(() => queryLogListener(logger as never), 'ERR_AMBIENT_DRIVERS_INVALID_ARGUMENT');
    }
  });
});

describe('one guard per process', () => {
  it('a second guardDrivers() while one is on throws ERR_AMBIENT_DRIVERS_ALREADY_GUARDED; after dispose() it works', () => {
    const first = guard({ pg });
    expectCode(() => guardDrivers(), 'ERR_AMBIENT_DRIVERS_ALREADY_GUARDED');
    expectCode(() => guardDrivers({ mysql2 }), 'ERR_AMBIENT_DRIVERS_ALREADY_GUARDED');
    first.dispose();
    guard({ pg });
  });

  it('so does a second copy of the package (a duplicate install, or the other build)', () => {
    guard();
    let copy: typeof drivers | undefined;
    jest.isolateModules(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a second copy, as a duplicate install loads it
      copy = require('../src/index') as typeof drivers;
    });
    expect(copy?.guardDrivers).not.toBe(guardDrivers);
    expectCode(() => copy!.guardDrivers(), 'ERR_AMBIENT_DRIVERS_ALREADY_GUARDED');
  });

  it("dispose() is idempotent: a stale guard's second dispose() leaves a newer guard on", () => {
    const first = guard();
    first.dispose();
    first.dispose();
    guard();
    first.dispose();
    expectCode(() => guardDrivers(), 'ERR_AMBIENT_DRIVERS_ALREADY_GUARDED');
  });
});

describe('what a guard reports, and dispose() putting it all back', () => {
  it('binds every driver channel by default, and only those of `channels` when given', () => {
    expect(guard().channels).toEqual(allChannels);
    active.pop()!.dispose();
    expect(guard({ channels: ['ioredis'] }).channels).toEqual(['ioredis:connect']);
    active.pop()!.dispose();
    expect(guard({ channels: [] }).channels).toEqual([]);
    active.pop()!.dispose();
    // Without detaching, the ioredis and node-redis channels have nothing to do (their callbacks need nothing).
    expect(guard({ detachConnections: false }).channels).toEqual([
      'mysql2:query',
      'mysql2:execute',
      'mysql2:pool:connect',
    ]);
  });

  it('the channels are bound while guarded and free again after dispose()', () => {
    const names = ['mysql2:query', 'mysql2:pool:connect', 'ioredis:connect'];
    expect(names.map((name) => tracingChannel(name).start.hasSubscribers)).toEqual([false, false, false]);
    const made = guard();
    expect(names.map((name) => tracingChannel(name).start.hasSubscribers)).toEqual([true, true, true]);
    expect(tracingChannel('mysql2:query').asyncStart.hasSubscribers).toBe(true);
    made.dispose();
    expect(names.map((name) => tracingChannel(name).start.hasSubscribers)).toEqual([false, false, false]);
    expect(tracingChannel('mysql2:query').asyncStart.hasSubscribers).toBe(false);
  });

  it('patches pg, mysql2 before 3.20 and the node-redis pool; of mysql2 3.24, only where its pool may open a socket', () => {
    expect(guard({ pg }).patched).toEqual([
      'pg Pool#connect',
      'pg Pool#query',
      'pg Pool#newClient',
      'pg Pool#_afterConnect',
      'pg Pool#_acquireClient',
      'pg Client#query',
      'pg Client#connect',
    ]);
    active.pop()!.dispose();
    // Its channels restore every callback; getConnection leaves the request only when the pool may open a socket.
    const mysql2Guard = guard({ mysql2 });
    expect(mysql2Guard.patched).toEqual(['mysql2 Pool#getConnection']);
    expect(mysql2Guard.channels).toEqual(expect.arrayContaining(['mysql2:query', 'mysql2:pool:connect']));
    active.pop()!.dispose();
    expect(guard({ mysql2, detachConnections: false }).patched).toEqual([]);
    active.pop()!.dispose();
    // Its channels left out: nothing restores its callbacks, so nothing of it is patched either.
    expect(guard({ mysql2, channels: ['ioredis'] }).patched).toEqual([]);
    active.pop()!.dispose();
    expect(guard({ mysql2: mysql2v319 as unknown as typeof mysql2 }).patched).toEqual([
      'mysql2 Pool#getConnection',
      'mysql2 Pool#query',
      'mysql2 Pool#execute',
      'mysql2 Connection#query',
      'mysql2 Connection#execute',
    ]);
    active.pop()!.dispose();
    expect(guard({ redis }).patched).toEqual(['node-redis RedisClientPool#execute']);
  });

  it('dispose() restores the original methods, where they are defined; the replacements keep their names', () => {
    const originals = pgMethods.map(([start, name]) => ownerOf(start, name)[name]);
    const made = guard({ pg, mysql2: mysql2v319 as unknown as typeof mysql2, redis });
    const replaced = pgMethods.map(([start, name]) => ownerOf(start, name)[name]);
    replaced.forEach((method, index) => {
      expect(method).not.toBe(originals[index]);
      expect((method as () => void).name).toBe((originals[index] as () => void).name);
    });
    // Patched where defined: pg.Pool's connect is pg-pool's, which a subclass made before or after inherits.
    expect(Object.prototype.hasOwnProperty.call(pg.Pool.prototype, 'connect')).toBe(false);
    made.dispose();
    expect(pg.Client.prototype.query).toBe(originals[2]);
    expect(pgMethods.map(([start, name]) => ownerOf(start, name)[name])).toEqual(originals);
    made.dispose();
    expect(pgMethods.map(([start, name]) => ownerOf(start, name)[name])).toEqual(originals);
  });

  it('a module without the methods is patched nowhere; one class for both pg names is patched once', () => {
    expect(guard({ pg: {}, mysql2: {}, redis: {} }).patched).toEqual([]);
    active.pop()!.dispose();
    class Both {
      connect(): void {}
      query(): void {}
    }
    const original = Both.prototype.query;
    const made = guard({ pg: { Pool: Both, Client: Both } });
    // Pool#query and Client#query are one method here, and so are the two connects: each wrapped once.
    expect(made.patched).toEqual(['pg Pool#connect', 'pg Pool#query']);
    made.dispose();
    expect(Both.prototype.query).toBe(original);
  });

  it('dispose() leaves a method that someone else replaced after the guard as they left it', () => {
    const original = pg.Client.prototype.query;
    const made = guard({ pg });
    const theirs = function query(this: pg.Client, ...args: unknown[]) {
      return Reflect.apply(original, this, args) as unknown;
    };
    pg.Client.prototype.query = theirs as typeof original;
    made.dispose();
    expect(pg.Client.prototype.query).toBe(theirs);
    pg.Client.prototype.query = original;
  });
});

describe('the channel binding, on synthetic TracingChannel messages', () => {
  /** A pool in miniature: the caller's callback is kept, and called later by whoever releases. */
  function callLater(channelName: string, context: object) {
    const channel = tracingChannel(channelName);
    let kept: (() => void) | undefined;
    return {
      call(callback: (error: null) => void) {
        channel.traceCallback(
          (cb: (error: null) => void) => {
            kept = () => cb(null);
          },
          0,
          context,
          undefined,
          callback,
        );
      },
      release: () => kept!(),
    };
  }

  it('a traced callback runs in its caller, called from another request, on every mysql2 channel', () => {
    guard();
    for (const name of ['mysql2:query', 'mysql2:execute', 'mysql2:pool:connect']) {
      const pool = callLater(name, {});
      let saw: string | undefined;
      inRequest('caller', () => pool.call(() => (saw = seen())));
      inRequest('releaser', () => pool.release());
      expect(saw).toBe('caller');
    }
  });

  it('a frozen context (Node 26 passes one when none is given) is left alone: no throw, no caller recorded', () => {
    guard();
    const channel = tracingChannel('mysql2:query');
    const frozen = Object.freeze({});
    inRequest('caller', () => channel.start.runStores(frozen, () => undefined));
    expect(inRequest('releaser', () => channel.asyncStart.runStores(frozen, () => seen()))).toBe('releaser');
  });

  it('a message whose start was never seen (guarded mid-call) runs in the current context', () => {
    guard();
    const channel = tracingChannel('mysql2:query');
    expect(inRequest('current', () => channel.asyncStart.runStores({}, () => seen()))).toBe('current');
  });
});

describe('the pg query wrapper, on a stand-in Client (pure helper)', () => {
  const error = new Error('stand-in failure');
  class StandIn {
    static outcome: 'rows' | 'error' = 'rows';
    query(...args: unknown[]): unknown {
      const callback = args[args.length - 1];
      const outcome = StandIn.outcome;
      if (typeof callback === 'function' && args.length > 1) {
        setImmediate(() => (outcome === 'rows' ? callback(null, 'rows') : callback(error)));
        return undefined;
      }
      if (typeof args[0] === 'object' && (args[0] as { plain?: boolean }).plain === true) return 'a plain value';
      return outcome === 'rows' ? Promise.resolve('rows') : Promise.reject(error);
    }
  }

  it('reports each finished query once, in its caller, and hands back values and errors unchanged', async () => {
    const events: Array<QueryEvent & { saw: string }> = [];
    guard({ pg: { Client: StandIn }, onQuery: (event) => events.push({ ...event, saw: seen() }) });
    const client = new StandIn();
    StandIn.outcome = 'rows';
    const rows = await inRequest(
      'cb',
      () => new Promise((resolve) => client.query("SELECT 'x'", (_: unknown, r: unknown) => resolve(r))),
    );
    expect(rows).toBe('rows');
    await expect(inRequest('promise', () => client.query({ text: 'SELECT 1' }))).resolves.toBe('rows');
    StandIn.outcome = 'error';
    const failure = await inRequest('cb-fails', () => new Promise((resolve) => client.query('SELECT 2', resolve)));
    expect(failure).toBe(error);
    await expect(inRequest('promise-fails', () => client.query('SELECT 3'))).rejects.toBe(error);
    expect(events.map(({ saw, statement, failed }) => [saw, statement, failed])).toEqual([
      ['cb', 'SELECT ?', false],
      ['promise', 'SELECT ?', false],
      ['cb-fails', 'SELECT ?', true],
      ['promise-fails', 'SELECT ?', true],
    ]);
    expect(events.every((event) => event.system === 'postgresql' && event.driver === 'pg')).toBe(true);
    expect(events.every((event) => event.durationMs >= 0)).toBe(true);
  });

  it('passes through unreported what is no text query: no text, a Submittable, a result that is no promise', async () => {
    const events: QueryEvent[] = [];
    guard({ pg: { Client: StandIn }, onQuery: (event) => events.push(event) });
    const client = new StandIn();
    StandIn.outcome = 'rows';
    const saw = await inRequest(
      'no-text',
      () => new Promise<string>((resolve) => client.query({ name: 'prepared' }, () => resolve(seen()))),
    );
    expect(saw).toBe('no-text');
    await client.query({ text: 'SELECT 1', submit() {} });
    expect(client.query({ text: 'SELECT 1', plain: true })).toBe('a plain value');
    expect(events).toHaveLength(0);
  });

  it('queryLogListener writes info, or warn when failed, with the message given and durationMs in microseconds', () => {
    const calls: Array<[string, unknown, string]> = [];
    const logger = {
      info: (line: object, message: string) => calls.push(['info', line, message]),
      warn: (line: object, message: string) => calls.push(['warn', line, message]),
    };
    const listener = queryLogListener(logger, 'sql');
    const event = { system: 'redis', driver: 'ioredis', statement: 'GET', durationMs: 1.23456789 } as const;
    listener({ ...event, failed: false });
    listener({ ...event, failed: true });
    const db = { system: 'redis', driver: 'ioredis', statement: 'GET', durationMs: 1.235 };
    expect(calls).toEqual([
      ['info', { db }, 'sql'],
      ['warn', { db }, 'sql failed'],
    ]);
  });
});

describe('an onQuery listener that throws', () => {
  let emitWarning: jest.SpyInstance;
  beforeEach(() => {
    emitWarning = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
  });
  afterEach(() => emitWarning.mockRestore());

  it('never breaks a query; one warning, WARN_AMBIENT_DRIVERS_QUERY_LISTENER_THREW, for the process', async () => {
    let calls = 0;
    guard({
      pg: { Client: StandInClient },
      onQuery: () => {
        calls += 1;
        if (calls === 1) throw new TypeError('listener bug');
        // eslint-disable-next-line @typescript-eslint/only-throw-error -- a listener may throw anything
        throw 'a string';
      },
    });
    const client = new StandInClient();
    await expect(client.query('SELECT 1')).resolves.toBe('rows');
    await expect(
      new Promise((resolve) => client.query('SELECT 1', (_: unknown, rows: unknown) => resolve(rows))),
    ).resolves.toBe('rows');
    const channel = tracingChannel('ioredis:command');
    await channel.tracePromise(async () => 'OK', { command: 'get' });
    expect(calls).toBe(3);
    // The listener's warnings only: this file's guards also warn of drivers not passed (expected-warnings.ts).
    const listenerWarnings = emitWarning.mock.calls.filter(
      ([, options]) => (options as { code?: string } | undefined)?.code !== 'WARN_AMBIENT_DRIVERS_NOT_PASSED',
    );
    expect(listenerWarnings).toHaveLength(1);
    expect(listenerWarnings[0]![1]).toEqual({
      type: 'AmbientWarning',
      code: 'WARN_AMBIENT_DRIVERS_QUERY_LISTENER_THREW',
    });
    expect(String(listenerWarnings[0]![0])).toContain('TypeError');
  });
});

class StandInClient {
  query(...args: unknown[]): unknown {
    const callback = args[args.length - 1];
    if (typeof callback === 'function' && args.length > 1) {
      setImmediate(() => callback(null, 'rows'));
      return undefined;
    }
    return Promise.resolve('rows');
  }
}

describe('the query log on synthetic channel messages', () => {
  it('reports nothing for a message it never saw start, nor for a frozen one; an error marks it failed', async () => {
    const events: QueryEvent[] = [];
    guard({ onQuery: (event) => events.push(event) });
    const channel = tracingChannel('node-redis:command');
    channel.asyncEnd.publish({ command: 'GET' });
    channel.asyncEnd.publish(null);
    const frozen = Object.freeze({ command: 'GET' });
    for (const event of ['start', 'error', 'asyncStart', 'asyncEnd'] as const) channel[event].publish(frozen);
    expect(events).toEqual([]);
    await expect(
      channel.tracePromise(async () => Promise.reject(new Error('no')), { command: 'incr' }),
    ).rejects.toThrow('no');
    await channel.tracePromise(async () => 'OK', { args: ['GET'] });
    await channel.tracePromise(async () => 'OK', { query: 'not a command' });
    const mysql = tracingChannel('mysql2:execute');
    await mysql.tracePromise(async () => 'OK', { command: 'SELECT' });
    expect(events.map(({ system, driver, statement, failed }) => [system, driver, statement, failed])).toEqual([
      ['redis', 'node-redis', 'INCR', true],
      ['redis', 'node-redis', '', false],
      ['redis', 'node-redis', '', false],
      ['mysql', 'mysql2', '', false],
    ]);
  });
});

describeWithServices(['postgres', 'mariadb', 'redis'], 'detachConnections', () => {
  const resources = openedResources();
  afterAll(() => resources.closeAll());

  /** Which request a pg client connected inside A runs its socket's events in: its `notice` listener. */
  async function pgNoticeSeen(): Promise<string> {
    const client = resources.track(new pg.Client(pgConfig), (opened) => opened.end());
    await inRequest('A', () => client.connect());
    const notices: string[] = [];
    client.on('notice', () => notices.push(seen()));
    await inRequest('B', () => client.query("DO $$BEGIN RAISE NOTICE 'ambient'; END$$"));
    // Callbacks are bound either way: each request's own query callback sees itself.
    expectEachSawItself(
      await everyRequest(requestIds(5), (id, report) =>
        client.query('SELECT $1::text', [id], (error) => report(error)),
      ),
    );
    await resources.close(client);
    return notices.join(', ');
  }

  async function mysqlConnectionSeen(): Promise<string> {
    const pool = resources.track(
      runInRoot(() => mysql2.createPool({ ...mysqlConfig, connectionLimit: 1 })),
      (opened) => new Promise<void>((resolve) => opened.end(() => resolve())),
    );
    const connections: string[] = [];
    pool.on('connection', () => connections.push(seen()));
    await new Promise<void>((resolve, reject) =>
      inRequest('A', () => pool.query('SELECT 1', (error) => (error ? reject(error) : resolve()))),
    );
    expectEachSawItself(
      await everyRequest(requestIds(5), (id, report) => pool.query('SELECT ?', [id], (error) => report(error))),
    );
    await resources.close(pool);
    return connections.join(', ');
  }

  async function ioredisReadySeen(): Promise<string> {
    const client = resources.track(
      runInRoot(() => new Redis({ ...redisConfig, lazyConnect: true })),
      (opened) => opened.quit(),
    );
    const ready: string[] = [];
    client.on('ready', () => ready.push(seen()));
    await inRequest('A', () => client.ping());
    await resources.close(client);
    return ready.join(', ');
  }

  it('on (the default): sockets open outside any request, so their events see none', async () => {
    guard({ pg });
    expect(await pgNoticeSeen()).toBe('none');
    expect(await mysqlConnectionSeen()).toBe('none');
    expect(await ioredisReadySeen()).toBe('none');
  });

  it('false: a socket opened inside request A stays A’s, as without the guard; callbacks are still bound', async () => {
    const made = guard({ pg, detachConnections: false });
    expect(made.patched).toContain('pg Client#connect');
    expect(await pgNoticeSeen()).toBe('A');
    expect(await mysqlConnectionSeen()).toBe('A');
    expect(await ioredisReadySeen()).toBe('A');
  });

  it('false with mysql2 before 3.20: getConnection is bound, not detached', async () => {
    guard({ mysql2: mysql2v319 as unknown as typeof mysql2, detachConnections: false });
    const pool = resources.track(
      runInRoot(() => mysql2v319.createPool({ ...mysqlConfig, connectionLimit: 1 })),
      (opened) => new Promise<void>((resolve) => opened.end(() => resolve())),
    );
    const connections: string[] = [];
    pool.on('connection', () => connections.push(seen()));
    const saw = await new Promise<string>((resolve, reject) =>
      inRequest('A', () =>
        pool.getConnection((error, connection) => {
          if (error) return reject(error);
          connection.release();
          resolve(seen());
        }),
      ),
    );
    expect([saw, connections.join(', ')]).toEqual(['A', 'A']);
    await resources.close(pool);
  });
});

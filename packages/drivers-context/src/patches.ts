import { performance } from 'node:perf_hooks';
import { bindCallback, runInRoot } from '@ambient/core';
import { bindFirstCall, captureContext } from '@ambient/core/internal';
import { patchMethod, bindLastCallback } from './patch-method.js';
import { stayingInRequest } from './channels.js';
import { acquiresInWaiter, armsLifetimeOutside, opensForWaiter, recordsWaiter } from './pg-pool-queue.js';
import { emit, type QueryListener } from './query-log.js';
import { redactStatement } from './statement.js';

/*
 * Small wrappers for drivers that publish no TracingChannel events: pg and pg-pool (brianc/node-postgres#3650
 * is open), mysql2 before 3.20, and node-redis's client pool. Each binds the trailing callback to its caller's
 * context for one call (bindFirstCall, or bindCallback where the driver may keep it: pg keeps a client's
 * connect callback after an error), and runs what opens a socket outside any request, so that the socket
 * neither keeps the first request alive nor runs later callbacks in it. Results, errors, return values and
 * timing are the driver's own.
 */

type Patch = () => (() => void) | undefined;

type Bind = <F extends (...a: never[]) => unknown>(fn: F) => F;

/**
 * A method that calls its trailing callback later, from another context: bound to the caller for one call. By
 * default with bindFirstCall, for callbacks the driver drops once called (a query's, a queued pool request's);
 * bindCallback where it may keep one for ever (a connect callback: pg keeps `_connectionCallback` after an error).
 */
function bindsCallback(start: object | undefined, name: string, bind: Bind = bindFirstCall): Patch {
  return () =>
    patchMethod(
      start,
      name,
      (original) =>
        function (this: unknown, ...args: unknown[]) {
          return Reflect.apply(original, this, bindLastCallback(args, bind));
        },
    );
}

/**
 * A method that may open a socket: run outside any request, its callback bound to the caller for one call (held
 * weakly after it: the connection it opens may keep it, in a connect listener, for as long as it lives). Where
 * `mayOpen` says this call will not open one, it stays in the request: running outside it costs two context
 * switches, and a warm pool opens nothing.
 */
function opensConnection(start: object | undefined, name: string, mayOpen: (self: unknown) => boolean = always): Patch {
  return () =>
    patchMethod(
      start,
      name,
      (original) =>
        function (this: unknown, ...args: unknown[]) {
          if (!mayOpen(this)) return Reflect.apply(original, this, bindLastCallback(args, bindFirstCall));
          const bound = bindLastCallback(args, bindCallback);
          return runInRoot(() => Reflect.apply(original, this, bound));
        },
    );
}

const always = (): boolean => true;

/**
 * Can this mysql2 pool open a connection for the next getConnection? Not while one is free: it hands that out;
 * nor when it holds `connectionLimit` connections already (0: no limit): it queues the call until one is
 * released (lib/base/pool.js; these fields since mysql2 1.x). A busy pool queues most calls, so this keeps them
 * in the request too. A pool without these fields may always open one.
 */
function mysql2PoolMayOpen(pool: unknown): boolean {
  const {
    _freeConnections: free,
    _allConnections: all,
    config,
  } = (pool ?? {}) as {
    _freeConnections?: { length?: unknown };
    _allConnections?: { length?: unknown };
    config?: { connectionLimit?: unknown };
  };
  if (typeof free?.length === 'number' && free.length > 0) return false;
  const limit = config?.connectionLimit;
  return !(typeof all?.length === 'number' && typeof limit === 'number' && limit > 0 && all.length >= limit);
}

function prototypeOf(value: unknown): object | undefined {
  if (typeof value !== 'function') return undefined;
  const prototype = (value as { prototype?: unknown }).prototype;
  return typeof prototype === 'object' && prototype !== null ? prototype : undefined;
}

/** What can be patched of a module, by name (for the guard's report); a name whose method is missing is left out. */
export interface PatchPlan {
  readonly name: string;
  readonly apply: Patch;
}

/**
 * pg (and pg-pool, its Pool's base class): every callback path, a waiting request's pool events
 * (pg-pool-queue.ts), and sockets opened outside requests.
 */
export function pgPatches(
  pg: { Pool?: unknown; Client?: unknown },
  detachConnections: boolean,
  onQuery: QueryListener | undefined,
): PatchPlan[] {
  const pool = prototypeOf(pg.Pool);
  const client = prototypeOf(pg.Client);
  return [
    { name: 'pg Pool#connect', apply: () => recordsWaiter(pool) },
    { name: 'pg Pool#query', apply: bindsCallback(pool, 'query') },
    { name: 'pg Pool#newClient', apply: () => opensForWaiter(pool) },
    { name: 'pg Pool#_afterConnect', apply: () => armsLifetimeOutside(pool) },
    { name: 'pg Pool#_acquireClient', apply: () => acquiresInWaiter(pool) },
    {
      name: 'pg Client#query',
      apply: onQuery === undefined ? bindsCallback(client, 'query') : loggedPgQuery(client, onQuery),
    },
    {
      name: 'pg Client#connect',
      apply: detachConnections ? opensConnection(client, 'connect') : bindsCallback(client, 'connect', bindCallback),
    },
  ];
}

/**
 * mysql2 before 3.20: the paths its TracingChannel events cover from 3.20, and (with `onQuery`) the queries its
 * `mysql2:query`/`mysql2:execute` events report from 3.20. Every query of a pool, of mysql2/promise and of a
 * connection goes through Connection#query or #execute.
 */
export function mysql2Patches(
  mysql2: { Pool?: unknown; Connection?: unknown },
  detachConnections: boolean,
  onQuery: QueryListener | undefined,
): PatchPlan[] {
  const pool = prototypeOf(mysql2.Pool);
  const connection = prototypeOf(mysql2.Connection);
  const command = (method: 'query' | 'execute'): Patch =>
    onQuery === undefined ? bindsCallback(connection, method) : loggedMysql2Command(connection, method, onQuery);
  return [
    {
      name: 'mysql2 Pool#getConnection',
      apply: detachConnections
        ? opensConnection(pool, 'getConnection', mysql2PoolMayOpen)
        : bindsCallback(pool, 'getConnection', bindCallback),
    },
    { name: 'mysql2 Pool#query', apply: bindsCallback(pool, 'query') },
    { name: 'mysql2 Pool#execute', apply: bindsCallback(pool, 'execute') },
    { name: 'mysql2 Connection#query', apply: command('query') },
    { name: 'mysql2 Connection#execute', apply: command('execute') },
  ];
}

/**
 * mysql2 3.20+ passed in: its channels restore every callback and detach every getConnection (channels.ts);
 * Pool#getConnection tells them which calls will not open a socket, and those stay in the request: detaching a
 * warm pool's call too would cost two context switches there and two more to come back.
 */
export function mysql2PoolDetach(mysql2: { Pool?: unknown }): PatchPlan[] {
  return [
    {
      name: 'mysql2 Pool#getConnection',
      apply: () =>
        patchMethod(
          prototypeOf(mysql2.Pool),
          'getConnection',
          (original) =>
            function (this: unknown, ...args: unknown[]) {
              if (mysql2PoolMayOpen(this)) return Reflect.apply(original, this, args);
              return stayingInRequest('mysql2', () => Reflect.apply(original, this, args));
            },
        ),
    },
  ];
}

/** node-redis: createClientPool().execute(fn) runs a queued fn from whoever released a client. */
export function nodeRedisPatches(redis: { RedisClientPool?: unknown }): PatchPlan[] {
  return [
    { name: 'node-redis RedisClientPool#execute', apply: bindsCallback(prototypeOf(redis.RedisClientPool), 'execute') },
  ];
}

/**
 * Does this mysql2 publish TracingChannel events (3.20 and later)? mysql2 exports no version, so its query is
 * asked: from 3.20 it goes through traceCallback (lib/base/connection.js).
 */
export function mysql2PublishesChannels(mysql2: { Connection?: unknown }): boolean {
  const query = (prototypeOf(mysql2.Connection) as { query?: unknown } | undefined)?.query;
  return typeof query === 'function' && Function.prototype.toString.call(query).includes('traceCallback');
}

/** The text of a pg query: `query(text, …)` or `query({ text }, …)`. */
function pgText(config: unknown): string | undefined {
  if (typeof config === 'string') return config;
  const text = (config as { text?: unknown } | null | undefined)?.text;
  return typeof text === 'string' ? text : undefined;
}

/**
 * pg's Client#query, its callback bound as above, and each query reported to `onQuery` when it finishes, in
 * the caller's context (pg publishes no channels to take it from). A promise-style query returns pg's promise
 * chained once more, so its value and its error (pg's own, with pg's stack) reach the caller as they were. A
 * Submittable (pg-cursor, pg-query-stream) is passed through unreported.
 */
function loggedPgQuery(client: object | undefined, onQuery: QueryListener): Patch {
  return () =>
    patchMethod(
      client,
      'query',
      (original) =>
        function (this: unknown, ...args: unknown[]) {
          const config = args[0];
          const text = pgText(config);
          if (text === undefined || typeof (config as { submit?: unknown }).submit === 'function') {
            return Reflect.apply(original, this, bindLastCallback(args, bindFirstCall));
          }
          const caller = captureContext();
          const started = performance.now();
          const done = (failed: boolean) =>
            emit(
              onQuery,
              {
                system: 'postgresql',
                driver: 'pg',
                statement: redactStatement(text),
                durationMs: performance.now() - started,
                failed,
              },
              caller,
            );
          const reported = withReportingCallback(args, done);
          if (reported !== undefined) return Reflect.apply(original, this, reported);
          const result = Reflect.apply(original, this, args) as { then?: unknown } | undefined;
          if (typeof result?.then !== 'function') return result;
          return (result as Promise<unknown>).then(
            (value) => {
              done(false);
              return value;
            },
            (error: unknown) => {
              done(true);
              throw error;
            },
          );
        },
    );
}

/**
 * The arguments with their trailing callback (after at least one other argument) bound to the caller for one
 * call and telling `done` first whether it failed; `undefined` where there is no such callback.
 */
function withReportingCallback(args: unknown[], done: (failed: boolean) => void): unknown[] | undefined {
  const last = args.length - 1;
  const callback = args[last];
  if (last < 1 || typeof callback !== 'function') return undefined;
  const reported = args.slice();
  // Bound outside the report: the one switch into the caller serves both, where the report, called first from
  // the socket's context, would switch in and out once more to tell the listener.
  reported[last] = bindFirstCall(reportingFirst(callback as (...a: unknown[]) => unknown, done));
  return reported;
}

/** A Node-style `callback` that tells `done` whether it was called with an error, then runs as it would. */
function reportingFirst(callback: (...a: unknown[]) => unknown, done: (failed: boolean) => void) {
  return function (this: unknown, error: unknown, ...rest: unknown[]): unknown {
    done(error !== null && error !== undefined);
    return Reflect.apply(callback, this, [error, ...rest]);
  };
}

/** What a mysql2 Connection#query/#execute returns: its command, an EventEmitter holding the SQL it sent. */
interface Mysql2Command {
  sql?: unknown;
  onResult?: unknown;
  emit?: unknown;
}

/**
 * mysql2 (before 3.20) Connection#query or #execute, its callback bound as above, and each query reported to
 * `onQuery` once, in the caller's context, where its result is handed over: the callback passed in, the callback
 * of a command passed in (pool.query), or the `error` or else `end` event of a command used as an emitter. The
 * statement is the command's SQL, redacted. Not reported: `prepare()` then `statement.execute()` (3.20's channels
 * skip it too), and an emitter-style query that a fatal connection error ends. No listener is added (an `error`
 * listener would swallow errors nobody else listens to): only the instance's own `onResult` or `emit` is wrapped.
 */
function loggedMysql2Command(
  connection: object | undefined,
  method: 'query' | 'execute',
  onQuery: QueryListener,
): Patch {
  return () =>
    patchMethod(
      connection,
      method,
      (original) =>
        function (this: unknown, ...args: unknown[]) {
          const caller = captureContext();
          const started = performance.now();
          // Set once the driver returns its command; a connection already closed calls back before that.
          const sent: { command?: Mysql2Command | undefined } = {};
          let reported = false;
          const done = (failed: boolean) => {
            if (reported) return;
            reported = true;
            const sql = sent.command?.sql ?? mysql2Sql(args[0]);
            emit(
              onQuery,
              {
                system: 'mysql',
                driver: 'mysql2',
                statement: typeof sql === 'string' ? redactStatement(sql) : '',
                durationMs: performance.now() - started,
                failed,
              },
              caller,
            );
          };
          const withCallback = withReportingCallback(args, done);
          // A command passed in (pool.query builds one) is watched before mysql2 sees it: a closed connection calls
          // its callback at once, before returning.
          const passedIn = withCallback === undefined && isMysql2Command(args[0]) ? args[0] : undefined;
          if (passedIn !== undefined) reportWhenFinished(passedIn, done);
          const command = Reflect.apply(original, this, withCallback ?? bindLastCallback(args, bindFirstCall)) as
            Mysql2Command | undefined;
          sent.command = command;
          if (withCallback === undefined && passedIn === undefined && isMysql2Command(command)) {
            reportWhenFinished(command, done);
          }
          return command;
        },
    );
}

/** The SQL of mysql2's first argument: `query(sql, …)`, `query({ sql }, …)` or a command built by a pool. */
function mysql2Sql(first: unknown): unknown {
  return typeof first === 'string' ? first : (first as { sql?: unknown } | null | undefined)?.sql;
}

/** A mysql2 command: the EventEmitter query() and execute() make, and pool.query() passes in. */
function isMysql2Command(value: unknown): value is Mysql2Command {
  return typeof value === 'object' && value !== null && typeof (value as Mysql2Command).emit === 'function';
}

/** A mysql2 command with no callback argument: reported from its own callback, or from its events. */
function reportWhenFinished(command: Mysql2Command, done: (failed: boolean) => void): void {
  const onResult = command.onResult;
  if (typeof onResult === 'function') {
    // Bound where the command is sent, in its caller, as withReportingCallback binds: one switch back, not two.
    command.onResult = bindFirstCall(reportingFirst(onResult as (...a: unknown[]) => unknown, done));
    return;
  }
  const emitEvent = command.emit;
  if (typeof emitEvent !== 'function') return;
  // Reported as failed at `error` itself: with no listener of the caller's, that emit throws and `end` never comes.
  command.emit = function (this: unknown, event: unknown, ...rest: unknown[]) {
    if (event === 'error' || event === 'end') done(event === 'error');
    return Reflect.apply(emitEvent, this, [event, ...rest]) as unknown;
  };
}

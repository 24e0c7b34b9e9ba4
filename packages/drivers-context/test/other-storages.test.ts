// Which context a guarded callback restores: Ambient's, and with it OpenTelemetry's active span where
// @ambient/opentelemetry-context is the context manager, and nothing else. Any other AsyncLocalStorage
// (OpenTelemetry's stock AsyncLocalStorageContextManager, nestjs-cls, an application's own) is not Ambient's to
// switch: in a guarded query callback it reads what the driver calls back from, the context of the request that
// opened the socket (X), while Ambient reads the caller (B). Opening connections outside any request
// (detachConnections) does not change that: it takes Ambient's values out of the socket, not another storage's.
// The README's "Other AsyncLocalStorage users" pitfall rests on these rows:
//
// | read in B's callback (X opened the socket; B queued behind A) | without the guard | with it |
// |---------------------------------------------------------------|-------------------|---------|
// | requestContext                                                | X                 | B       |
// | OpenTelemetry's active span, AmbientContextManager            | X                 | B       |
// | OpenTelemetry's active span, AsyncLocalStorageContextManager  | X                 | X       |
// | an AsyncLocalStorage of the application's own                 | X                 | X       |
//
// for pg (patched), mysql2 3.24 (its TracingChannel events: Channel#bindStore enters Ambient's store only) and
// mysql2 3.19 (patched). Binding the whole async context instead (AsyncResource.bind) would switch every store,
// but only where Ambient patches: mysql2 3.20+ calls a query back through its channel, whose bindStore enters the
// stores bound to it and no other. So one rule holds for every driver: Ambient's context, no other.
import { AsyncLocalStorage } from 'node:async_hooks';
import { trace, type Context, type ContextManager } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import mysql2 from 'mysql2';
import mysql2v319 from 'mysql2-319';
import pg from 'pg';
import { AmbientContextManager } from '@ambient/opentelemetry-context';
import type { GuardDriversOptions } from '@ambient/drivers-context';
import { holdMysql2Connection, holdPgConnection } from './helpers/hold-connection.js';
import { describeEachPhase, type Phase } from './helpers/phases.js';
import { inRequest, recordRow, seen } from './helpers/requests.js';
import { describeWithServices, mysqlConfig, pgConfig, versionOf, type Service } from './helpers/services.js';

const tracer = new BasicTracerProvider().getTracer('ambient-drivers-other-storages');
const ambientManager = new AmbientContextManager();
const stockManager = new AsyncLocalStorageContextManager();
/** What nestjs-cls, or an application's own request store, is: an AsyncLocalStorage Ambient does not own. */
const ownStorage = new AsyncLocalStorage<string>();

beforeAll(() => {
  ambientManager.enable();
  stockManager.enable();
});
afterAll(() => {
  ambientManager.disable();
  stockManager.disable();
});

/** The name of the span active in `manager`'s context (each request's span is named after it), or `none`. */
function activeSpanName(manager: ContextManager): string {
  const span = trace.getSpan(manager.active()) as unknown as ReadableSpan | undefined;
  return span?.name ?? 'none';
}

/** Each reader's answer in a callback, as the table's cells. */
interface Readings {
  readonly requestContext: string;
  readonly ambientManager: string;
  readonly stockManager: string;
  readonly ownStorage: string;
}

function read(): Readings {
  return {
    requestContext: seen(),
    ambientManager: activeSpanName(ambientManager),
    stockManager: activeSpanName(stockManager),
    ownStorage: ownStorage.getStore() ?? 'none',
  };
}

/** `fn` inside request `id` as every reader knows it: Ambient's scope, a span in each manager, its own store. */
function inEveryStorage<R>(id: string, fn: () => R): R {
  const withSpan = (manager: ContextManager, next: () => R): R => {
    const span = tracer.startSpan(id, {}, manager.active());
    const context: Context = trace.setSpan(manager.active(), span);
    return manager.with(context, () => {
      try {
        return next();
      } finally {
        span.end();
      }
    });
  };
  return inRequest(id, () => withSpan(ambientManager, () => withSpan(stockManager, () => ownStorage.run(id, fn))));
}

/** A pool of one connection: X opens it; A holds it (releasing it from its query's callback) while B's waits. */
interface PoolOfOne {
  hold(): { held: Promise<void>; done: Promise<void> };
  query(callback: (error: Error | null | undefined) => void): void;
  end(): Promise<void>;
}

interface Driver {
  readonly driver: string;
  readonly service: Service;
  readonly options: () => GuardDriversOptions;
  readonly open: () => PoolOfOne;
}

const drivers: readonly Driver[] = [
  {
    driver: versionOf('pg'),
    service: 'postgres',
    options: () => ({ pg }),
    open: () => {
      const pool = new pg.Pool({ ...pgConfig, max: 1 });
      return {
        hold: () => holdPgConnection(pool, 'query callback'),
        query: (callback) => pool.query('SELECT 1', callback),
        end: () => pool.end(),
      };
    },
  },
  ...[
    // mysql2 3.20+ through its TracingChannel events, and one before them, through the patched methods.
    { module: mysql2, driver: versionOf('mysql2') },
    { module: mysql2v319 as unknown as typeof mysql2, driver: versionOf('mysql2-319') },
  ].map(({ module, driver }): Driver => ({
    driver,
    service: 'mariadb',
    options: () => ({ mysql2: module }),
    open: () => {
      const pool = module.createPool({ ...mysqlConfig, connectionLimit: 1 });
      return {
        hold: () => holdMysql2Connection(pool, 'query callback'),
        query: (callback) => pool.query('SELECT 1', callback),
        end: () => pool.promise().end(),
      };
    },
  })),
];

/** What each reader saw in B's callback: X's everywhere without the guard; with it, Ambient's readers see B. */
const expected: Record<Phase, Readings> = {
  'without guard': { requestContext: 'X', ambientManager: 'X', stockManager: 'X', ownStorage: 'X' },
  'with guard': { requestContext: 'B', ambientManager: 'B', stockManager: 'X', ownStorage: 'X' },
};

/** `pool.query(cb)` inside request `id` as every reader knows it: what each reader saw in the callback. */
function queryIn(pool: PoolOfOne, id: string): Promise<Readings> {
  return new Promise<Readings>((resolve, reject) =>
    inEveryStorage(id, () => pool.query((error) => (error ? reject(error) : resolve(read())))),
  );
}

for (const { driver, service, options, open } of drivers) {
  // Skipped (loudly) only where the driver's server is not reachable on 127.0.0.1; under CI=true it fails instead.
  describeWithServices([service], `${driver}: the stores a guarded callback restores`, () => {
    describeEachPhase(options, (phase) => {
      it("B's query(cb), queued behind A on X's socket: Ambient's readers see B with the guard, others X", async () => {
        const pool = open();
        try {
          // X's query opens the pool's one socket; X, A and B are requests to every reader.
          await queryIn(pool, 'X');
          const a = inEveryStorage('A', () => pool.hold());
          // A failed connect settles `done`, not `held`: race them so that it fails here, not at the timeout.
          await Promise.race([a.held, a.done]);
          const [readings] = await Promise.all([queryIn(pool, 'B'), a.done]);
          for (const [reader, cell] of Object.entries(readings)) {
            recordRow(driver, `${reader} in B's callback, queued behind A on X's socket`, phase, cell);
          }
          expect(readings).toEqual(expected[phase]);
        } finally {
          await pool.end();
        }
      });
    });
  });
}

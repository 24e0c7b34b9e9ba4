// Which context a guarded callback restores: Ambient's, and with it OpenTelemetry's active span where
// @ambient/opentelemetry-context is the context manager, and nothing else. Any other AsyncLocalStorage
// (OpenTelemetry's stock AsyncLocalStorageContextManager, nestjs-cls, an application's own) is not Ambient's to
// switch: in the guarded callback of B, queued behind A, it still reads A, the request that released the
// connection, while Ambient reads B. The README's "Other AsyncLocalStorage users" pitfall rests on these rows:
//
// | read in B's callback (queued behind A)                  | without the guard | with it |
// |---------------------------------------------------------|-------------------|---------|
// | requestContext                                          | A                 | B       |
// | OpenTelemetry's active span, AmbientContextManager      | A                 | B       |
// | OpenTelemetry's active span, AsyncLocalStorageContext…  | A                 | A       |
// | an AsyncLocalStorage of the application's own           | A                 | A       |
//
// for pg (patched), mysql2 3.24 (its TracingChannel events: Channel#bindStore runs Ambient's store only) and
// mysql2 3.19 (patched). Binding the whole async context instead (AsyncResource.bind) would switch every store,
// but only where Ambient patches: a channel's bindStore switches the stores bound to it, so mysql2 3.20+,
// ioredis and node-redis would still differ. So one rule holds for every driver: Ambient's context, no other.
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

/** A pool of one connection: A holds it (releasing it from its query's callback) while B's `query(cb)` waits. */
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
    { module: mysql2v319 as unknown as typeof mysql2, driver: 'mysql2@3.19.1' },
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

/** What each reader saw in B's callback: A's everywhere without the guard; with it, Ambient's readers see B. */
const expected: Record<Phase, Readings> = {
  'without guard': { requestContext: 'A', ambientManager: 'A', stockManager: 'A', ownStorage: 'A' },
  'with guard': { requestContext: 'B', ambientManager: 'B', stockManager: 'A', ownStorage: 'A' },
};

for (const { driver, service, options, open } of drivers) {
  describeWithServices([service], `${driver}: the stores a guarded callback restores`, () => {
    describeEachPhase(options, (phase) => {
      it("B's query(cb), queued behind A: Ambient's readers see B with the guard, any other storage A", async () => {
        const pool = open();
        try {
          // A is a request to every reader: its span in each manager, its own store, then requestContext's scope.
          const a = inEveryStorage('A', () => pool.hold());
          await a.held;
          const readings = await new Promise<Readings>((resolve, reject) =>
            inEveryStorage('B', () => pool.query((error) => (error ? reject(error) : resolve(read())))),
          );
          await a.done;
          for (const [reader, cell] of Object.entries(readings)) {
            recordRow(driver, `${reader} in B's callback, queued behind A`, phase, cell);
          }
          expect(readings).toEqual(expected[phase]);
        } finally {
          await pool.end();
        }
      });
    });
  });
}

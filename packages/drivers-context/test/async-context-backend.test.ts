// On the AsyncContext backend (globalThis.AsyncContext present when @ambient/core first loads) values do not
// live in an AsyncLocalStorage, so no TracingChannel can be bound: guardDrivers binds none and patches
// mysql2 3.20+ as it patches older versions. A pure check of the backend switch with a minimal
// AsyncContext.Variable (as core's registry.test.ts does), then a real hand-off on MariaDB.
import { AsyncLocalStorage } from 'node:async_hooks';
import mysql2 from 'mysql2';
import type * as core from '@ambient/core';
import type * as drivers from '@ambient/drivers-context';
import { describeWithServices, mysqlConfig } from './helpers/services.js';

class FakeAsyncContextVariable<T> {
  readonly #storage = new AsyncLocalStorage<T>();
  get(): T | undefined {
    return this.#storage.getStore();
  }
  run<R, A extends unknown[]>(value: T, fn: (...args: A) => R, ...args: A): R {
    return this.#storage.run(value, fn, ...args);
  }
}

const kRegistry = Symbol.for('@ambient/core.registry.v1');
const holder = globalThis as Record<PropertyKey, unknown>;
let fresh: { core: typeof core; drivers: typeof drivers };
let savedRegistry: unknown;

beforeAll(() => {
  savedRegistry = holder[kRegistry];
  delete holder[kRegistry];
  holder.AsyncContext = { Variable: FakeAsyncContextVariable };
  jest.isolateModules(() => {
    /* eslint-disable @typescript-eslint/no-require-imports -- fresh copies, loaded on the AsyncContext backend */
    fresh = {
      core: require('@ambient/core') as typeof core,
      drivers: require('../src/index') as typeof drivers,
    };
    /* eslint-enable @typescript-eslint/no-require-imports */
  });
});
afterAll(() => {
  holder[kRegistry] = savedRegistry;
  delete holder.AsyncContext;
});

it('binds no channel, and patches mysql2 3.24 instead; dispose() restores it', () => {
  // mysql2's typings leave out its Pool class, which it exports.
  const Pool = (mysql2 as unknown as { Pool: { prototype: object } }).Pool;
  const query = Object.getPrototypeOf(Pool.prototype) as { query: unknown };
  const original = query.query;
  const guard = fresh.drivers.guardDrivers({ mysql2 });
  try {
    expect(guard.channels).toEqual([]);
    expect(guard.patched).toEqual([
      'mysql2 Pool#getConnection',
      'mysql2 Pool#query',
      'mysql2 Pool#execute',
      'mysql2 Connection#query',
      'mysql2 Connection#execute',
    ]);
    expect(query.query).not.toBe(original);
  } finally {
    guard.dispose();
  }
  expect(query.query).toBe(original);
  // Without mysql2 there is nothing to fall back to.
  const bare = fresh.drivers.guardDrivers();
  expect([bare.channels, bare.patched]).toEqual([[], []]);
  bare.dispose();
});

describeWithServices(['mariadb'], 'mysql2 3.24 on the AsyncContext backend, patched', () => {
  it("pool.query(cb) queued behind A runs in each caller's request, and onQuery hears each query once", async () => {
    const { requestContext } = fresh.core;
    // The channels report the queries (subscribing needs no AsyncLocalStorage); the patches must not as well.
    const reported: Array<string | undefined> = [];
    const onQuery = () => void reported.push(requestContext.get('requestId'));
    const guard = fresh.drivers.guardDrivers({ mysql2, onQuery });
    const pool = mysql2.createPool({ ...mysqlConfig, connectionLimit: 1 });
    try {
      let onHeld!: () => void;
      const held = new Promise<void>((resolve) => (onHeld = resolve));
      const a = new Promise<void>((resolve) =>
        requestContext.run({ requestId: 'A' }, () =>
          pool.getConnection((error, connection) => {
            if (error) throw error;
            onHeld();
            connection.query('SELECT SLEEP(0.2)', () => {
              connection.release();
              resolve();
            });
          }),
        ),
      );
      await held;
      const ids = ['B1', 'B2', 'B3', 'B4', 'B5'];
      const seen = await Promise.all(
        ids.map(
          (id) =>
            new Promise<string | undefined>((resolve, reject) =>
              requestContext.run({ requestId: id }, () =>
                pool.query('SELECT 1', (error) => (error ? reject(error) : resolve(requestContext.get('requestId')))),
              ),
            ),
        ),
      );
      await a;
      expect(seen).toEqual(ids);
      expect(reported.sort()).toEqual(['A', ...ids]); // A's SLEEP, then each B's SELECT 1: once each
    } finally {
      guard.dispose();
      await new Promise<void>((resolve) => pool.end(() => resolve()));
    }
  });
});

import { appendFileSync } from 'node:fs';
import { requestContext } from '@ambient/core';

declare module '@ambient/core' {
  interface RequestStore {
    /** An object only the request's scope holds: registered in a FinalizationRegistry to see the scope collected. */
    payload?: object;
  }
}

/** The request a callback or listener runs in, as a table cell: its requestId, or `none`. */
export function seen(): string {
  return requestContext.get('requestId') ?? 'none';
}

export function inRequest<R>(requestId: string, fn: () => R): R {
  return requestContext.run({ requestId }, fn);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** `count` request ids, B01, B02, …: many requests at once, each its own id, so no assertion passes by luck. */
export function requestIds(count = 20, prefix = 'B'): string[] {
  return Array.from({ length: count }, (_, index) => `${prefix}${String(index + 1).padStart(2, '0')}`);
}

/** What a driver passed as its error, as a promise may be rejected with it. */
function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

export type Seen = ReadonlyArray<readonly [id: string, saw: string]>;

/**
 * Starts every request of `ids` at once, each calling `start(id, report)` inside its own scope, and resolves
 * when each has reported what its callback saw (or rejects on the first error reported).
 */
export function everyRequest(
  ids: readonly string[],
  start: (id: string, report: (error: unknown) => void) => unknown,
): Promise<Seen> {
  return Promise.all(
    ids.map(
      (id) =>
        new Promise<readonly [string, string]>((resolve, reject) => {
          inRequest(id, () =>
            start(id, (error) => {
              const saw = seen();
              if (error !== null && error !== undefined) reject(asError(error));
              else resolve([id, saw]);
            }),
          );
        }),
    ),
  );
}

/** Each request saw its own id. */
export function expectEachSawItself(results: Seen): void {
  expect(results.filter(([id, saw]) => id !== saw)).toEqual([]);
  expect(results.length).toBeGreaterThan(0);
}

/** No request saw its own id (where the research found the unguarded outcome deterministic). */
export function expectNoneSawItself(results: Seen): void {
  expect(results.filter(([id, saw]) => id === saw)).toEqual([]);
  expect(results.length).toBeGreaterThan(0);
}

/** A table cell: `own id` when each saw itself, else the distinct values seen (`none`, `A`, …). */
export function summarize(results: Seen): string {
  if (results.every(([id, saw]) => id === saw)) return 'own id';
  const values = [...new Set(results.map(([id, saw]) => (id === saw ? 'own id' : saw)))].sort();
  return values.join(' | ');
}

/**
 * Writes one row of the driver × path table (what the guard was measured against) where
 * AMBIENT_DRIVERS_TABLE names a file: `AMBIENT_DRIVERS_TABLE=/tmp/t.jsonl npx jest --selectProjects drivers`.
 */
export function recordRow(driver: string, path: string, phase: 'without guard' | 'with guard', cell: string): void {
  const file = process.env['AMBIENT_DRIVERS_TABLE'];
  if (file !== undefined && file !== '') {
    appendFileSync(file, `${JSON.stringify({ driver, path, phase, saw: cell })}\n`);
  }
}

/**
 * Starts request `requestId`, whose scope holds an object nothing else holds, registered in a
 * FinalizationRegistry, and waits for it to call `done`: `collected()` then tells whether the garbage
 * collector has taken the object, i.e. whether anything (a socket, a timer, a driver's listener) still keeps
 * the request's values after the request has ended. The promise waited on is made here, outside the request:
 * on the async_hooks implementation (Node 20, 22) a promise made inside it would carry its values itself, and
 * a driver that keeps the callback (pg keeps a client's connect callback) would keep them through it (see
 * pg.test.ts, "a callback that closes over a promise made in A").
 */
export function inTrackedRequest<R = void>(
  requestId: string,
  start: (done: (error: unknown, value?: R) => void) => unknown,
): Promise<{ readonly value: R | undefined; readonly registry: FinalizationRegistry<string>; collected(): boolean }> {
  let collected = false;
  const registry = new FinalizationRegistry<string>(() => {
    collected = true;
  });
  return new Promise((resolve, reject) => {
    const done = (error: unknown, value?: R) => {
      if (error !== null && error !== undefined) reject(asError(error));
      else resolve({ value, registry, collected: () => collected });
    };
    requestContext.run({ requestId, payload: registeredPayload(registry) }, () => start(done));
  });
}

function registeredPayload(registry: FinalizationRegistry<string>): object {
  const payload = { big: new Array<number>(10_000).fill(7) };
  registry.register(payload, 'payload');
  return payload;
}

const gc = (globalThis as { gc?: () => void }).gc;

/**
 * Is a collection available (`node --expose-gc`)? Without, GC assertions are skipped loudly, except under
 * `CI=true`, where a run without the flag would pass without checking what issue #16 asks.
 */
let warnedNoGc = false;
export function canCollect(): boolean {
  if (gc === undefined && process.env['CI'] === 'true') {
    throw new Error('global.gc is absent under CI=true: run node --expose-gc node_modules/jest/bin/jest.js');
  }
  if (gc === undefined && !warnedNoGc) {
    warnedNoGc = true;
    console.warn(
      '\n  SKIPPED GC ASSERTION: global.gc is absent; run node --expose-gc node_modules/jest/bin/jest.js (npm test does)\n',
    );
  }
  return gc !== undefined;
}

/**
 * Runs full collections, with turns of the event loop between, until `collected()` or two seconds have passed.
 * A driver that keeps a request keeps it for as long as its socket lives, so waiting longer cannot hide a leak;
 * a dozen tries 20 ms apart once missed a release on a loaded machine (node-redis, one run in seven).
 */
export async function collectGarbage(collected: () => boolean): Promise<boolean> {
  const deadline = Date.now() + 2_000;
  while (!collected() && Date.now() < deadline) {
    await sleep(20);
    gc?.();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return collected();
}

/**
 * Pools and clients opened by a test file: each closed once, by the test that opened it (`close`) or, if it
 * failed half-way, by the file's afterAll (`closeAll`).
 */
export function openedResources(): {
  track<T extends object>(resource: T, close: (resource: T) => unknown): T;
  close(resource: object): Promise<void>;
  closeAll(): Promise<void>;
} {
  const open = new Map<object, () => unknown>();
  const close = async (resource: object) => {
    const closing = open.get(resource);
    open.delete(resource);
    await closing?.();
  };
  return {
    track(resource, closeIt) {
      open.set(resource, () => closeIt(resource));
      return resource;
    },
    close,
    async closeAll() {
      const results = await Promise.allSettled([...open.keys()].map(close));
      const failed = results.find((result) => result.status === 'rejected');
      if (failed !== undefined) throw failed.reason;
    },
  };
}

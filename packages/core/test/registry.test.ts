import { AsyncLocalStorage } from 'node:async_hooks';
import * as core from '@ambient/core';
import type * as internal from '@ambient/core/internal';

type Core = typeof core;
const kRegistry = Symbol.for('@ambient/core.registry.v1');

/** A second, separately evaluated copy of @ambient/core, as a duplicate install or the other build would be. */
type Internal = typeof internal;

function loadAnotherCopy(): Core & { internal: Internal } {
  let copy: (Core & { internal: Internal }) | undefined;
  jest.isolateModules(() => {
    /* eslint-disable @typescript-eslint/no-require-imports -- a second copy of the module, as a duplicate install loads it */
    copy = { ...(require('../src/index') as Core), internal: require('../src/internal') as Internal };
    /* eslint-enable @typescript-eslint/no-require-imports */
  });
  if (copy === undefined || copy.Variable === core.Variable)
    throw new Error('jest.isolateModules did not load a second copy');
  return copy;
}

describe('one storage cell per process', () => {
  it('keeps one registry on globalThis under a versioned Symbol.for key, backed by AsyncLocalStorage', () => {
    const registry = (globalThis as Record<symbol, { version: string; implementation: string; storage: unknown }>)[
      kRegistry
    ];
    expect(registry?.version).toBe('0.1.0');
    expect(registry?.implementation).toMatch(/^(async_hooks|AsyncContextFrame)$/);
    expect(registry?.storage).toBeInstanceOf(AsyncLocalStorage);
  });

  it.each([
    ['of another release line', { version: '0.2.0', copies: [{ version: '0.2.0', path: '/elsewhere/core' }] }],
    ['that is no registry at all', { some: 'thing' }],
  ])('warns once about a registry %s found under the key, and keeps a storage of its own', (_, found) => {
    const holder = globalThis as Record<PropertyKey, unknown>;
    const savedRegistry = holder[kRegistry];
    holder[kRegistry] = found;
    const emitWarning = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      const other = loadAnotherCopy();
      expect(emitWarning).toHaveBeenCalledTimes(1);
      expect(emitWarning.mock.calls[0]![1]).toEqual({ type: 'AmbientWarning', code: 'WARN_AMBIENT_INCOMPATIBLE_COPY' });
      expect(holder[kRegistry]).toBe(found);
      expect(other.requestContext).not.toBe(core.requestContext);
      other.requestContext.run({ requestId: 'theirs' }, () => expect(core.requestContext.active).toBe(false));
      if ('copies' in found) expect(found.copies.map((copy) => copy.version)).toEqual(['0.2.0', '0.1.0']);
    } finally {
      emitWarning.mockRestore();
      holder[kRegistry] = savedRegistry;
    }
  });

  it('two copies of the package share values, requestContext itself, and AmbientError', async () => {
    const other = loadAnotherCopy();
    expect(other.Variable).not.toBe(core.Variable);
    expect(other.requestContext).toBe(core.requestContext);

    await core.requestContext.run({ requestId: 'from the first copy' }, async () => {
      await null;
      expect(other.requestContext.get('requestId')).toBe('from the first copy');
      const snapshot = new other.Snapshot();
      const mine = new core.Variable<string>();
      mine.run('mine', () =>
        expect(snapshot.run(() => [mine.get(), core.requestContext.get('requestId')])).toEqual([
          undefined,
          'from the first copy',
        ]),
      );
    });

    const theirs = new other.Variable<string>();
    const mine = new core.Variable<string>();
    theirs.run('theirs', () => mine.run('mine', () => expect([theirs.get(), mine.get()]).toEqual(['theirs', 'mine'])));

    let thrown: unknown;
    try {
      other.requestContext.set('requestId', 'x');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(core.AmbientError);
    expect(thrown).toBeInstanceOf(other.AmbientError);
  });

  it('a set() from one copy never escapes a run() of the other', () => {
    const other = loadAnotherCopy();
    const variable = new core.Variable<string>();
    variable.run('outer', () => {
      const snapshot = new other.Snapshot();
      snapshot.run(() => variable.set('inside the other copy'));
      expect(variable.get()).toBe('outer');
    });
  });

  it('bindEmitter from two copies wraps a listener once', async () => {
    const other = loadAnotherCopy();
    const { EventEmitter } = await import('node:events');
    const emitter = other.bindEmitter(core.bindEmitter(new EventEmitter()));
    const listener = () => undefined;
    emitter.on('event', listener);
    expect(emitter.rawListeners('event')[0]).toHaveProperty('listener', listener);
    expect(
      (emitter.rawListeners('event')[0] as unknown as { listener: { listener?: unknown } }).listener.listener,
    ).toBeUndefined();
  });
});

describe('other AsyncLocalStorage instances (OpenTelemetry, loggers) next to Ambient', () => {
  /** What `enter` does to another instance's value: its value inside, after an enterWith inside, and after. */
  function effectOn(enter: (fn: () => unknown) => unknown): unknown[] {
    const theirs = new AsyncLocalStorage<string>();
    return theirs.run('outer', () => {
      const seen: unknown[] = [];
      enter(() => {
        seen.push(theirs.getStore());
        theirs.run('nested', () => seen.push(theirs.getStore()));
        seen.push(theirs.getStore());
        theirs.enterWith('entered inside');
      });
      seen.push(theirs.getStore());
      return seen;
    });
  }

  it('Variable#run, Context#run and Snapshot#run treat them exactly as AsyncLocalStorage#run does', () => {
    const reference = new AsyncLocalStorage<number>();
    const expected = effectOn((fn) => reference.run(1, fn));
    const variable = new core.Variable<number>();
    const context = core.createContext<{ id: number }>();
    expect(effectOn((fn) => variable.run(1, fn))).toEqual(expected);
    expect(effectOn((fn) => context.run({ id: 1 }, fn))).toEqual(expected);
    expect(effectOn((fn) => new core.Snapshot().run(fn))).toEqual(expected);
    expect(effectOn((fn) => variable.run(1, () => variable.run(2, fn)))).toEqual(expected);
  });

  it('neither changes the other across awaits', async () => {
    const theirs = new AsyncLocalStorage<string>();
    const variable = new core.Variable<string>();
    const seen = await theirs.run('theirs', () =>
      variable.run('ours', async () => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        return theirs.run('theirs, nested', async () => {
          await null;
          return [theirs.getStore(), variable.get()];
        });
      }),
    );
    expect(seen).toEqual(['theirs, nested', 'ours']);
    expect([theirs.getStore(), variable.get()]).toEqual([undefined, undefined]);
  });
});

describe('the AsyncContext backend', () => {
  /**
   * A minimal AsyncContext.Variable with the TC39 shape, over its own AsyncLocalStorage: a pure unit test of
   * the backend switch. The smoke tests run the built package on a real polyfill (@webfill/async-context).
   */
  class FakeAsyncContextVariable<T> {
    static created: string[] = [];
    readonly #storage = new AsyncLocalStorage<T>();
    constructor(options?: { name?: string }) {
      FakeAsyncContextVariable.created.push(options?.name ?? '');
    }
    get(): T | undefined {
      return this.#storage.getStore();
    }
    run<R, A extends unknown[]>(value: T, fn: (...args: A) => R, ...args: A): R {
      return this.#storage.run(value, fn, ...args);
    }
  }

  it('is chosen when globalThis.AsyncContext exists as the first copy loads; set() then throws a typed error', async () => {
    const holder = globalThis as Record<PropertyKey, unknown>;
    const savedRegistry = holder[kRegistry];
    delete holder[kRegistry];
    holder.AsyncContext = { Variable: FakeAsyncContextVariable };
    try {
      const fresh = loadAnotherCopy();
      expect(FakeAsyncContextVariable.created).toEqual(['ambient']);
      const variable = new fresh.Variable<string>({ defaultValue: 'default' });
      const seen = await variable.run('value', () =>
        fresh.requestContext.run({ requestId: 'r' }, async () => {
          await new Promise((resolve) => setTimeout(resolve, 1));
          fresh.requestContext.set('traceId', 't');
          return [variable.get(), fresh.requestContext.snapshot()];
        }),
      );
      expect(seen).toEqual(['value', { requestId: 'r', traceId: 't' }]);
      variable.run('value', () =>
        expect(() => variable.set('x')).toThrow(
          expect.objectContaining({ code: 'ERR_AMBIENT_SET_UNSUPPORTED' }) as Error,
        ),
      );
      variable.run('value', () => expect(() => variable.set('x')).toThrow(fresh.AmbientError));
      // Nothing else enters in place there either: attach, and a subscriber's enter, say so.
      expect(() => fresh.internal.attachValue(new fresh.Variable<string>(), 'x')).toThrow(
        expect.objectContaining({ code: 'ERR_AMBIENT_SET_UNSUPPORTED' }) as Error,
      );
      expect(fresh.internal.enterCapturedContext(undefined)).toBe(false);
      expect(variable.get()).toBe('default');
    } finally {
      holder[kRegistry] = savedRegistry;
      delete holder.AsyncContext;
    }
  });
});

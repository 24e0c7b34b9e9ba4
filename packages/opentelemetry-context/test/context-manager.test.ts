// The behaviours OpenTelemetry's own context managers are tested for
// (open-telemetry/opentelemetry-js, packages/opentelemetry-context-async-hooks/test/AsyncHooksContextManager.test.ts),
// run against AmbientContextManager and, as a control for the tests themselves, AsyncLocalStorageContextManager.
import { EventEmitter, errorMonitor } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { ROOT_CONTEXT, createContextKey, type Context, type ContextManager } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { AmbientContextManager } from '@ambient/opentelemetry-context';

const key1 = createContextKey('test key 1');
/** OpenTelemetry's tests use plain strings as contexts: a manager must treat a context as opaque. */
const opaque = (value: string) => value as unknown as Context;

describe.each([
  ['AmbientContextManager', () => new AmbientContextManager()],
  ['AsyncLocalStorageContextManager (control)', () => new AsyncLocalStorageContextManager()],
] as Array<[string, () => ContextManager]>)('%s', (_name, create) => {
  let manager: ContextManager;
  let other: ContextManager | undefined;
  beforeEach(() => {
    manager = create().enable();
  });
  afterEach(() => {
    manager.disable();
    other?.disable();
    other = undefined;
  });

  describe('.enable() / .disable()', () => {
    it('enable returns this, and may be called twice', () => {
      const fresh = create();
      expect(fresh.enable()).toBe(fresh);
      expect(fresh.enable()).toBe(fresh);
      fresh.disable();
    });

    it('disable returns this; active() is ROOT_CONTEXT after it, even inside a with()', () => {
      const ctx = ROOT_CONTEXT.setValue(key1, 1);
      manager.with(ctx, () => {
        expect(manager.disable()).toBe(manager);
        expect(manager.active()).toBe(ROOT_CONTEXT);
      });
      manager.enable();
    });
  });

  describe('.with()', () => {
    it('runs the callback synchronously, with ROOT_CONTEXT as target', () => {
      const fn = jest.fn();
      manager.with(ROOT_CONTEXT, fn);
      expect(fn).toHaveBeenCalledTimes(1);
      expect(fn.mock.calls[0]).toEqual([]);
    });

    it('makes active() return the very context given', () => {
      const ctx = ROOT_CONTEXT.setValue(key1, 1);
      manager.with(ctx, () => expect(manager.active()).toBe(ctx));
      expect(manager.active()).toBe(ROOT_CONTEXT);
    });

    it('runs the callback when disabled', () => {
      manager.disable();
      const fn = jest.fn();
      manager.with(ROOT_CONTEXT, fn);
      expect(fn).toHaveBeenCalledTimes(1);
    });

    it('rethrows errors, and restores the previous context after them', () => {
      const outer = ROOT_CONTEXT.setValue(key1, 'outer');
      manager.with(outer, () => {
        expect(() =>
          manager.with(ROOT_CONTEXT.setValue(key1, 'inner'), () => {
            throw new Error('boom');
          }),
        ).toThrow('boom');
        expect(manager.active()).toBe(outer);
      });
    });

    it('forwards this, exactly the arguments given, and the return value', () => {
      const result = manager.with(
        ROOT_CONTEXT,
        function (this: string, a: string, b: number) {
          expect(this).toBe('that');
          expect(arguments.length).toBe(2);
          expect([a, b]).toEqual(['one', 2]);
          return 'done';
        },
        'that',
        'one',
        2,
      );
      expect(result).toBe('done');
      expect(manager.with(ROOT_CONTEXT, () => 3.14)).toBe(3.14);
    });

    it('restores the outer context after a nested with()', () => {
      const ctx1 = ROOT_CONTEXT.setValue(key1, 'ctx1');
      const ctx2 = ROOT_CONTEXT.setValue(key1, 'ctx2');
      manager.with(ctx1, () => {
        manager.with(ctx2, () => expect(manager.active()).toBe(ctx2));
        expect(manager.active()).toBe(ctx1);
      });
    });

    it('keeps the context in a timer started inside it', async () => {
      const ctx = ROOT_CONTEXT.setValue(key1, 'timer');
      const seen = await new Promise((resolve) =>
        manager.with(ctx, () => setTimeout(() => resolve(manager.active()), 1)),
      );
      expect(seen).toBe(ctx);
    });

    it('an async function called from a nested with() sees the nested context after an await', async () => {
      const seen: unknown[] = [];
      const inner = async () => {
        await Promise.resolve();
        seen.push(manager.active());
      };
      let pending: Promise<void> | undefined;
      manager.with(opaque('1'), () => {
        pending = manager.with(opaque('2'), inner);
        seen.push(manager.active());
      });
      seen.push(manager.active());
      await pending;
      expect(seen).toEqual(['1', ROOT_CONTEXT, '2']);
    });

    it('does not lose the context across an awaited timer, and leaves none behind', async () => {
      const pending = manager.with(opaque('1'), async () => {
        await sleep(20);
        return manager.active();
      });
      expect(manager.active()).toBe(ROOT_CONTEXT);
      expect(await pending).toBe('1');
    });

    it('restores each level of four nested awaited with() calls', async () => {
      const levels = ['1', '2', '3', '4'].map(opaque);
      const seen: unknown[] = [];
      await manager.with(levels[0]!, async () => {
        await manager.with(levels[1]!, async () => {
          await manager.with(levels[2]!, async () => {
            await manager.with(levels[3]!, async () => seen.push(manager.active()));
            seen.push(manager.active());
          });
          seen.push(manager.active());
        });
        seen.push(manager.active());
      });
      seen.push(manager.active());
      expect(seen).toEqual(['4', '3', '2', '1', ROOT_CONTEXT]);
    });

    it('keeps concurrent operations apart', async () => {
      const seen: Array<[string, unknown]> = [];
      const chain = (outer: string, inner: string, delay: number) =>
        manager.with(opaque(outer), async () => {
          await sleep(delay);
          seen.push([outer, manager.active()]);
          await manager.with(opaque(inner), async () => {
            await sleep(delay);
            seen.push([inner, manager.active()]);
          });
          seen.push([outer, manager.active()]);
        });
      await Promise.all([chain('1', '3', 30), chain('2', '4', 5)]);
      expect(manager.active()).toBe(ROOT_CONTEXT);
      for (const [expected, actual] of seen) expect(actual).toBe(expected);
      expect(seen).toHaveLength(6);
    });

    it('separates timers with the same timeout created inside and outside', async () => {
      const key = Symbol('test');
      const inner = ROOT_CONTEXT.setValue(key, 'inner');
      const seen = await Promise.all([
        new Promise((resolve) =>
          manager.with(inner, () => setTimeout(() => resolve(manager.active().getValue(key)), 10)),
        ),
        new Promise((resolve) => setTimeout(() => resolve(manager.active().getValue(key)), 10)),
        new Promise((resolve) => setTimeout(() => resolve(manager.active().getValue(key)), 20)),
      ]);
      expect(seen).toEqual(['inner', undefined, undefined]);
    });

    it('does not influence other instances', () => {
      other = create().enable();
      const ctx = ROOT_CONTEXT.setValue(key1, 'mine');
      const otherCtx = ROOT_CONTEXT.setValue(key1, 'other');
      manager.with(ctx, () => {
        expect(other!.active()).toBe(ROOT_CONTEXT);
        other!.with(otherCtx, () => {
          expect(manager.active()).toBe(ctx);
          expect(other!.active()).toBe(otherCtx);
        });
      });
    });
  });

  describe('.bind(function)', () => {
    it.each([[{ a: 1 }], [42], [null], [undefined], ['text']])(
      'returns a non-function, non-emitter target as it is: %p',
      (target) => {
        expect(manager.bind(ROOT_CONTEXT, target)).toBe(target);
        manager.disable();
        expect(manager.bind(ROOT_CONTEXT, target)).toBe(target);
      },
    );

    it('runs the bound function in the given context, enabled or disabled', () => {
      const ctx = ROOT_CONTEXT.setValue(key1, 'bound');
      expect(manager.bind(ctx, () => manager.active())()).toBe(ctx);
      manager.disable();
      expect(manager.bind(ctx, () => manager.active())()).toBe(ctx);
    });

    it("forwards the caller's this, the arguments and the return value, and keeps length", () => {
      const ctx = ROOT_CONTEXT.setValue(key1, 'bound');
      const bound = manager.bind(ctx, function (this: { n: number }, a: number, b: number) {
        return [this.n, a, b, manager.active()];
      });
      expect(bound.length).toBe(2);
      expect(bound.call({ n: 1 }, 2, 3)).toEqual([1, 2, 3, ctx]);
    });

    it('keeps the context in async work started by the bound function', async () => {
      const ctx = ROOT_CONTEXT.setValue(key1, 'bound');
      const seen = await new Promise((resolve) =>
        manager.bind(ctx, () => setTimeout(() => resolve(manager.active()), 5))(),
      );
      expect(seen).toBe(ctx);
    });

    it('does not influence other instances', () => {
      other = create().enable();
      const ctx = ROOT_CONTEXT.setValue(key1, 'mine');
      const otherCtx = ROOT_CONTEXT.setValue(key1, 'other');
      const seen = other.bind(
        otherCtx,
        manager.bind(ctx, () => [manager.active(), other!.active()]),
      )();
      expect(seen).toEqual([ctx, otherCtx]);
    });
  });

  describe('.bind(EventEmitter)', () => {
    const ctx = ROOT_CONTEXT.setValue(key1, 'emitter');

    it('returns the same emitter, enabled or disabled', () => {
      const ee = new EventEmitter();
      expect(manager.bind(ROOT_CONTEXT, ee)).toBe(ee);
      manager.disable();
      const other = new EventEmitter();
      expect(manager.bind(ROOT_CONTEXT, other)).toBe(other);
    });

    it('runs listeners in the bound context; removeListener with the original listener removes them', () => {
      const ee = manager.bind(ctx, new EventEmitter());
      const seen: unknown[] = [];
      const handler = function (this: unknown, ...args: unknown[]) {
        seen.push([manager.active(), this, args]);
        ee.removeListener('test', handler);
      };
      ee.on('test', handler);
      expect(ee.listeners('test')).toHaveLength(1);
      ee.emit('test', 1, 2);
      expect(seen).toEqual([[ctx, ee, [1, 2]]]);
      expect(ee.listeners('test')).toHaveLength(0);
    });

    it('removeAllListeners(event) and removeAllListeners() clear bound listeners', () => {
      const ee = manager.bind(ctx, new EventEmitter());
      const handler = () => undefined;
      ee.on('test', handler);
      ee.on('test1', handler);
      ee.removeAllListeners('test');
      expect(ee.listeners('test')).toHaveLength(0);
      expect(ee.listeners('test1')).toHaveLength(1);
      ee.on('test', handler);
      ee.removeAllListeners();
      expect([ee.listenerCount('test'), ee.listenerCount('test1')]).toEqual([0, 0]);
    });

    it.each(['removeListener', 'off'] as const)(
      'removes a once listener with %s and the original listener',
      (method) => {
        const ee = manager.bind(ctx, new EventEmitter());
        const handler = jest.fn();
        ee.once('test', handler);
        expect(ee.listeners('test')).toHaveLength(1);
        ee[method]('test', handler);
        expect(ee.listeners('test')).toHaveLength(0);
        ee.emit('test');
        expect(handler).not.toHaveBeenCalled();
      },
    );

    it('once, prependListener and prependOnceListener run in the bound context; once fires once', () => {
      const ee = manager.bind(ctx, new EventEmitter());
      const seen: string[] = [];
      const record = (name: string) => () => seen.push(`${name}:${manager.active() === ctx}`);
      ee.once('test', record('once'));
      ee.prependListener('test', record('prepend'));
      ee.prependOnceListener('test', record('prependOnce'));
      ee.emit('test');
      ee.emit('test');
      expect(seen).toEqual(['prependOnce:true', 'prepend:true', 'once:true', 'prepend:true']);
    });

    it('binds symbol events such as errorMonitor, which http instrumentation uses', () => {
      const ee = manager.bind(ctx, new EventEmitter());
      let seen: unknown;
      ee.on(errorMonitor, () => (seen = manager.active()));
      ee.on('error', () => undefined);
      ee.emit('error', new Error('x'));
      expect(seen).toBe(ctx);
    });

    it('keeps the context in async work started by a listener', async () => {
      const ee = manager.bind(ctx, new EventEmitter());
      const seen = new Promise((resolve) => ee.on('test', () => setImmediate(() => resolve(manager.active()))));
      ee.emit('test');
      expect(await seen).toBe(ctx);
      ee.removeAllListeners('test');
      expect(ee.listenerCount('test')).toBe(0);
    });

    it('leaves listeners added before bind() in the context of emit()', () => {
      const ee = new EventEmitter();
      let seen: unknown;
      ee.on('test', () => (seen = manager.active()));
      manager.bind(ctx, ee);
      const emitting = ROOT_CONTEXT.setValue(key1, 'emit');
      manager.with(emitting, () => ee.emit('test'));
      expect(seen).toBe(emitting);
    });

    it('keeps the first binding when the same manager binds an emitter twice', () => {
      const ee = manager.bind(ctx, new EventEmitter());
      manager.bind(ROOT_CONTEXT.setValue(key1, 'second'), ee);
      let seen: unknown;
      ee.on('test', () => (seen = manager.active()));
      ee.emit('test');
      expect(seen).toBe(ctx);
    });

    it('does not influence other instances: both bindings apply', () => {
      other = create().enable();
      const otherCtx = ROOT_CONTEXT.setValue(key1, 'other');
      const ee = other.bind(otherCtx, manager.bind(ctx, new EventEmitter()));
      let seen: unknown[] = [];
      ee.on('test', () => (seen = [manager.active(), other!.active()]));
      ee.emit('test');
      expect(seen).toEqual([ctx, otherCtx]);
    });
  });
});

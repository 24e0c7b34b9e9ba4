// Observable steps of tc39/proposal-async-context's spec.html for AsyncContext.Variable and
// AsyncContext.Snapshot, one test per step that a program can see. They run on every Node line and backend
// of the matrix (scripts/node-matrix.mjs), like every jest test.
import { AmbientError, createContext, requestContext, Snapshot, Variable } from '@ambient/core';
import { expectAmbientError } from './helpers/starting-states.js';

describe('AsyncContext.Variable ( options )', () => {
  it('reads options in the spec order: HasProperty(name), Get(name), ToString, then Get(defaultValue)', () => {
    const steps: string[] = [];
    const options = new Proxy(
      { name: { toString: () => (steps.push('ToString(name)'), 'traced') }, defaultValue: 7 },
      {
        has: (target, key) => (steps.push(`has ${String(key)}`), Reflect.has(target, key)),
        get: (target, key, receiver: unknown) => (steps.push(`get ${String(key)}`), Reflect.get(target, key, receiver)),
      },
    );
    const variable = new Variable(options as never);
    expect(steps).toEqual(['has name', 'get name', 'ToString(name)', 'get defaultValue']);
    expect(variable.name).toBe('traced');
    expect(variable.get()).toBe(7);
  });

  it('accepts any value as options and reads only objects', () => {
    for (const options of [undefined, null, 'name', 42, true, Symbol('s')]) {
      const variable = new Variable(options as never);
      expect(variable.name).toBe('');
      expect(variable.get()).toBeUndefined();
    }
    const fromFunction = Object.assign(() => undefined, { defaultValue: 'from a function' });
    expect(new Variable(fromFunction as never).get()).toBe('from a function');
  });

  it('converts name with ToString: present-but-undefined differs from absent', () => {
    expect(new Variable({ name: undefined }).name).toBe('undefined');
    expect(new Variable({}).name).toBe('');
    expect(new Variable({ name: 5 } as never).name).toBe('5');
    expect(new Variable({ name: null } as never).name).toBe('null');
    expect(new Variable({ name: { toString: () => 'custom' } } as never).name).toBe('custom');
    // An inherited name counts: HasProperty, not HasOwnProperty.
    expect(new Variable(Object.create({ name: 'inherited' }) as never).name).toBe('inherited');
  });

  it('throws a TypeError (coded) for a Symbol name, and passes a throwing toString through', () => {
    expectAmbientError(() => new Variable({ name: Symbol('x') } as never), 'ERR_AMBIENT_INVALID_ARGUMENT');
    const boom = new Error('from toString');
    expect(
      () =>
        new Variable({
          name: {
            toString: () => {
              throw boom;
            },
          },
        } as never),
    ).toThrow(boom);
  });

  it('does not reject unknown keys (the one Ambient API that does not)', () => {
    expect(new Variable({ name: 'v', extra: true } as never).name).toBe('v');
  });

  it('is not callable without new', () => {
    expect(() => (Variable as unknown as () => unknown)()).toThrow(TypeError);
  });
});

describe('AsyncContext.Variable.prototype', () => {
  it('has name as an accessor without a setter, and no own name data property on instances', () => {
    const variable = new Variable({ name: 'user' });
    const descriptor = Object.getOwnPropertyDescriptor(Variable.prototype, 'name');
    expect(typeof descriptor?.get).toBe('function');
    expect(descriptor?.set).toBeUndefined();
    expect(Object.getOwnPropertyNames(variable)).toEqual([]);
    expect(() => {
      (variable as { name: string }).name = 'renamed';
    }).toThrow(TypeError);
    expect(variable.name).toBe('user');
    expect(JSON.stringify(variable)).toBe('{}');
  });

  it('carries Symbol.toStringTag "AsyncContext.Variable", non-writable, non-enumerable, configurable', () => {
    expect(Object.prototype.toString.call(new Variable())).toBe('[object AsyncContext.Variable]');
    expect(Object.getOwnPropertyDescriptor(Variable.prototype, Symbol.toStringTag)).toEqual({
      value: 'AsyncContext.Variable',
      writable: false,
      enumerable: false,
      configurable: true,
    });
  });

  it.each([
    ['get', (v: Variable<number>) => v.get],
    ['run', (v: Variable<number>) => v.run],
  ] as const)('%s on a foreign receiver throws a TypeError (RequireInternalSlot)', (_name, method) => {
    const real = method(new Variable<number>());
    for (const receiver of [{}, undefined, null, 1, new Snapshot(), createContext()]) {
      expectAmbientError(() => Reflect.apply(real, receiver, [1, () => 'ran']), 'ERR_AMBIENT_INVALID_RECEIVER');
    }
    // Inside a scope too: the old run() ran fn there and never noticed.
    new Variable<number>().run(1, () =>
      expectAmbientError(() => Reflect.apply(real, {}, [1, () => 'ran']), 'ERR_AMBIENT_INVALID_RECEIVER'),
    );
  });

  it('the name getter on a foreign receiver throws a TypeError', () => {
    const getter = Object.getOwnPropertyDescriptor(Variable.prototype, 'name')!.get!;
    expectAmbientError(() => getter.call({}), 'ERR_AMBIENT_INVALID_RECEIVER');
  });

  it('run calls func with this undefined, on every backend (AsyncLocalStorage#run passes null on Node 24)', () => {
    const variable = new Variable<number>();
    let receiver: unknown = 'not called';
    variable.run(1, function (this: unknown) {
      receiver = this;
    });
    expect(receiver).toBeUndefined();
    createContext<{ a: number }>().run({ a: 1 }, function (this: unknown) {
      receiver = this;
    });
    expect(receiver).toBeUndefined();
    requestContext.run({ requestId: 'r' }, function (this: unknown) {
      receiver = this;
    });
    expect(receiver).toBeUndefined();
  });

  it('a non-callable func is a TypeError, coded, and the previous values are untouched', () => {
    const variable = new Variable<number>({ defaultValue: 0 });
    variable.run(1, () => {
      expectAmbientError(() => variable.run(2, 'nope' as never), 'ERR_AMBIENT_INVALID_ARGUMENT');
      expect(variable.get()).toBe(1);
    });
  });
});

describe('AsyncContext.Snapshot', () => {
  it('is not callable without new', () => {
    expect(() => (Snapshot as unknown as () => unknown)()).toThrow(TypeError);
  });

  it('run on a foreign receiver throws a TypeError (RequireInternalSlot)', () => {
    for (const receiver of [{}, undefined, null, 1, new Variable()]) {
      expectAmbientError(
        () => Reflect.apply(Snapshot.prototype.run, receiver, [() => 'ran']),
        'ERR_AMBIENT_INVALID_RECEIVER',
      );
    }
  });

  it('run calls func with this undefined', () => {
    let receiver: unknown = 'not called';
    new Snapshot().run(function (this: unknown) {
      receiver = this;
    });
    expect(receiver).toBeUndefined();
  });

  it('carries Symbol.toStringTag "AsyncContext.Snapshot"', () => {
    expect(Object.prototype.toString.call(new Snapshot())).toBe('[object AsyncContext.Snapshot]');
    expect(Object.getOwnPropertyDescriptor(Snapshot.prototype, Symbol.toStringTag)?.writable).toBe(false);
  });

  it('wrap on a non-callable throws a TypeError, coded', () => {
    expectAmbientError(() => Snapshot.wrap(42 as never), 'ERR_AMBIENT_INVALID_ARGUMENT');
    expect(() => Snapshot.wrap(42 as never)).toThrow(TypeError);
  });

  it('its TypeErrors are AmbientErrors too', () => {
    let thrown: unknown;
    try {
      Snapshot.wrap(42 as never);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TypeError);
    expect(thrown).toBeInstanceOf(AmbientError);
  });
});

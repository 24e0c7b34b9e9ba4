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

// AsyncContext.Snapshot.wrap step 6, CopyNameAndLength(wrapped, fn, "wrapped") (the ShadowRealm proposal's
// abstract operation, which Function.prototype.bind follows too). Variable#wrap is Ambient's, and keeps the
// same shape.
describe.each([
  ['Snapshot.wrap', <F extends (...args: never[]) => unknown>(fn: F): F => Snapshot.wrap(fn)],
  ['Variable#wrap', <F extends (...args: never[]) => unknown>(fn: F): F => new Variable<number>().wrap(1, fn)],
])('%s: CopyNameAndLength', (_name, wrap) => {
  /** A function whose own `length` and `name` are replaced by `length` and `name` descriptors. */
  function shaped(length: PropertyDescriptor | undefined, name: PropertyDescriptor | undefined): () => void {
    const fn = function target() {};
    if (length === undefined) delete (fn as { length?: number }).length;
    else Object.defineProperty(fn, 'length', { configurable: true, ...length });
    if (name === undefined) delete (fn as { name?: string }).name;
    else Object.defineProperty(fn, 'name', { configurable: true, ...name });
    return fn;
  }

  it('copies length and prefixes the name with "wrapped "', () => {
    const wrapped = wrap(function handler(_a: number, _b: number, _c: number) {});
    expect(wrapped.length).toBe(3);
    expect(wrapped.name).toBe('wrapped handler');
    expect(wrap(function (_err: unknown, _req: unknown, _res: unknown, _next: unknown) {}).length).toBe(4);
    expect(wrap((..._rest: unknown[]) => undefined).length).toBe(0);
    expect(wrap((_a: number, _b = 2) => undefined).length).toBe(1);
    expect(wrap(function nine(_1: 1, _2: 2, _3: 3, _4: 4, _5: 5, _6: 6, _7: 7, _8: 8, _9: 9) {}).length).toBe(9);
    expect(wrap(((_a: number, _b: number) => undefined).bind(null, 1)).name).toBe('wrapped bound ');
    expect(wrap(((_a: number, _b: number) => undefined).bind(null, 1)).length).toBe(1);
  });

  it('gives an anonymous function the name "wrapped " (prefix, space, empty name)', () => {
    expect(wrap(shaped({ value: 0 }, { value: '' })).name).toBe('wrapped ');
  });

  it('defines length and name as the spec does: non-writable, non-enumerable, configurable', () => {
    const wrapped = wrap(function f(_a: number) {});
    for (const key of ['length', 'name']) {
      expect(Object.getOwnPropertyDescriptor(wrapped, key)).toMatchObject({
        writable: false,
        enumerable: false,
        configurable: true,
      });
    }
  });

  it.each([
    ['a non-integer', 2.7, 2],
    ['a negative number', -5, 0],
    ['-0', -0, 0],
    ['NaN', NaN, 0],
    ['+Infinity', Infinity, Infinity],
    ['-Infinity', -Infinity, 0],
    ['a numeric string', '3', 0],
    ['a BigInt', 3n, 0],
    ['an object', { valueOf: (): number => 3 }, 0],
    ['undefined', undefined, 0],
  ])('turns an own length that is %s into %p', (_what, value, expected) => {
    expect(wrap(shaped({ value }, { value: 'f' })).length).toBe(expected);
  });

  it('takes 0 when length is not an own property, even if the prototype chain has one', () => {
    const fn = shaped(undefined, { value: 'f' });
    Object.setPrototypeOf(fn, Object.create(Function.prototype, { length: { value: 5 } }) as object);
    expect((fn as { length: number }).length).toBe(5);
    expect(wrap(fn).length).toBe(0);
  });

  it.each([
    ['a number', 42],
    ['a Symbol', Symbol('name')],
    ['a String object', Object('named')],
    ['undefined', undefined],
  ])('uses the empty name when name is %s', (_what, value) => {
    expect(wrap(shaped({ value: 0 }, { value })).name).toBe('wrapped ');
  });

  it('reads an inherited name (Get, not HasOwnProperty)', () => {
    const fn = shaped({ value: 0 }, undefined);
    Object.setPrototypeOf(fn, Object.create(Function.prototype, { name: { value: 'inherited' } }) as object);
    expect(wrap(fn).name).toBe('wrapped inherited');
  });

  it('reads in the spec order: HasOwnProperty(length), Get(length), Get(name)', () => {
    const steps: string[] = [];
    const fn = new Proxy(function target(_a: number) {}, {
      getOwnPropertyDescriptor: (target, key) => (
        steps.push(`own ${String(key)}`),
        Reflect.getOwnPropertyDescriptor(target, key)
      ),
      get: (target, key, receiver: unknown) => (steps.push(`get ${String(key)}`), Reflect.get(target, key, receiver)),
    });
    const wrapped = wrap(fn);
    expect(steps).toEqual(['own length', 'get length', 'get name']);
    expect([wrapped.length, wrapped.name]).toEqual([1, 'wrapped target']);
  });

  it.each([
    ['the length getter', () => shaped({ get: thrower }, { value: 'f' })],
    ['the name getter', () => shaped({ value: 1 }, { get: thrower })],
    [
      'a getOwnPropertyDescriptor trap',
      () =>
        new Proxy(() => undefined, {
          getOwnPropertyDescriptor: thrower,
        }),
    ],
  ])('passes on what %s throws, and returns nothing', (_what, make) => {
    const fn = make();
    expect(() => wrap(fn)).toThrow(boom);
  });

  it('does not read name when the length getter throws', () => {
    let nameRead = false;
    const fn = shaped(
      { get: thrower },
      {
        get: () => {
          nameRead = true;
          return 'f';
        },
      },
    );
    expect(() => wrap(fn)).toThrow(boom);
    expect(nameRead).toBe(false);
  });

  it('returns a function that is not a constructor and has no prototype property', () => {
    const wrapped = wrap(function Constructor(this: { made?: boolean }) {
      this.made = true;
    });
    expect(() => new (wrapped as unknown as new () => unknown)()).toThrow(TypeError);
    expect(Object.prototype.hasOwnProperty.call(wrapped, 'prototype')).toBe(false);
  });

  it('passes this, every argument (more than declared too) and the return value through', () => {
    const wrapped = wrap(function (this: unknown, a: number, ...rest: number[]) {
      return [this, a, rest];
    });
    const receiver = { r: 1 };
    expect(wrapped.call(receiver, 1, 2, 3)).toEqual([receiver, 1, [2, 3]]);
  });
});

describe('OrdinaryCreateFromConstructor', () => {
  it.each([
    ['Variable', Variable, Variable.prototype],
    ['Snapshot', Snapshot, Snapshot.prototype],
  ] as const)('%s: a new.target whose prototype is no object gives its own prototype', (_, Class, prototype) => {
    for (const value of [undefined, null, true, '', Symbol('p'), 1]) {
      const newTarget = function () {}.bind(null) as unknown as { prototype: unknown };
      Object.defineProperty(newTarget, 'prototype', { value, configurable: true });
      expect(Object.getPrototypeOf(Reflect.construct(Class, [], newTarget as never))).toBe(prototype);
    }
    // An object, even Object.prototype itself, is taken as it is.
    expect(Object.getPrototypeOf(Reflect.construct(Class, [], Object))).toBe(Object.prototype);
    class Sub extends (Class as new () => object) {}
    expect(Object.getPrototypeOf(new Sub())).toBe(Sub.prototype);
  });

  it('instances have no own properties, string or symbol keyed', () => {
    for (const instance of [new Variable({ name: 'v', defaultValue: 1 }), new Snapshot()]) {
      expect(Reflect.ownKeys(instance)).toEqual([]);
    }
    expect([Variable.name, Snapshot.name]).toEqual(['Variable', 'Snapshot']);
  });
});

const boom = new Error('boom');
function thrower(): never {
  throw boom;
}

// The documented limits of an AsyncLocalStorage-based implementation (README, "Against the TC39 proposal"),
// pinned so that a Node change that lifts one is noticed.
describe('where AsyncLocalStorage differs from the proposal', () => {
  it('a generator body runs in the context of the next() caller, not of its creation (GeneratorStart)', () => {
    const variable = new Variable<string>({ name: 'generator' });
    const generator = variable.run('created', () =>
      (function* () {
        yield variable.get();
        yield variable.get();
      })(),
    );
    expect(variable.run('first next', () => generator.next().value)).toBe('first next');
    expect(variable.run('second next', () => generator.next().value)).toBe('second next');
    // The README's way round it: wrap next where the generator is made.
    const wrapped = variable.run('created', () => {
      const made = (function* () {
        yield variable.get();
      })();
      return Snapshot.wrap(() => made.next().value);
    });
    expect(variable.run('caller', wrapped)).toBe('created');
  });
});

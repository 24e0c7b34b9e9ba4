import { wrapInFrame, type CapturedContext } from './captured-context.js';
import { errors, notAFunction } from './errors.js';
import { allocateSlot, frameWith, implementation, runWithFrame, storage, undefinedValue } from './registry.js';

export interface VariableOptions<T> {
  /** Shown in error messages and debuggers. */
  name?: string;
  /** What get() returns where no value has been set in the current flow. */
  defaultValue?: T;
}

/** The slot of a Variable of this copy, for attachValue and captureWith; throws on anything else. */
let slotOf: (variable: unknown, method: string) => number;

/**
 * A single typed value that follows the async flow: TC39 `AsyncContext.Variable`'s shape, plus `set()` with
 * the copy-on-write semantics of Python's `ContextVar.set`.
 */
export class Variable<T> {
  readonly #slot: number;
  readonly #name: string;
  readonly #defaultValue: T | undefined;

  static {
    slotOf = (variable, method) => {
      if (!Variable.#is(variable)) throw errors.invalidReceiver(method, variable);
      return variable.#slot;
    };
  }

  static #is(value: unknown): value is Variable<unknown> {
    return typeof value === 'object' && value !== null && #slot in value;
  }

  /** Reads `options` as the proposal does: HasProperty and Get of `name`, ToString, then Get of `defaultValue`. */
  constructor(options?: VariableOptions<T>) {
    let name = '';
    let defaultValue: T | undefined;
    const given: unknown = options;
    if ((typeof given === 'object' && given !== null) || typeof given === 'function') {
      const read = given as VariableOptions<T>;
      if ('name' in read) {
        const value: unknown = read.name;
        if (typeof value === 'symbol') {
          throw errors.invalidArgument('new Variable(options): options.name', 'a value ToString accepts', value);
        }
        name = String(value);
      }
      defaultValue = read.defaultValue;
    }
    this.#name = name;
    this.#defaultValue = defaultValue;
    this.#slot = allocateSlot();
    ownPrototype(this, new.target, Variable.prototype);
  }

  /** The name given at construction (`''` by default): an accessor on the prototype, as in the proposal. */
  get name(): string {
    if (!Variable.#is(this)) throw errors.invalidReceiver('get Variable.prototype.name', this);
    return this.#name;
  }

  /** The value in the current flow, or the default value where none has been set. */
  get(): T | undefined {
    if (!Variable.#is(this)) throw errors.invalidReceiver('Variable.prototype.get', this);
    const value = storage.getStore()?.[this.#slot];
    if (value === undefined) return this.#defaultValue;
    return value === undefinedValue ? undefined : (value as T);
  }

  /** Calls `fn(...args)` with this variable holding `value`; the previous value is back when `fn` returns or throws. */
  run<R, A extends unknown[]>(value: T, fn: (...args: A) => R, ...args: A): R {
    if (!Variable.#is(this)) throw errors.invalidReceiver('Variable.prototype.run', this);
    if (typeof fn !== 'function') throw notAFunction(`${this.#owner()}.run(value, fn)`, fn);
    return runWithFrame(this.#frameWith(value), fn, undefined, args);
  }

  /** `fn`, bound as `run(value, () => Snapshot.wrap(fn))` would bind it, with nothing entered now. */
  wrap<F extends (...args: never[]) => unknown>(value: T, fn: F): F {
    if (!Variable.#is(this)) throw errors.invalidReceiver('Variable.prototype.wrap', this);
    if (typeof fn !== 'function') throw notAFunction(`${this.#owner()}.wrap(value, fn)`, fn);
    return wrapInFrame(this.#frameWith(value), fn);
  }

  /**
   * Changes the value for the rest of this synchronous execution and the continuations created after it, until
   * the innermost enclosing run() of any Variable, Snapshot or Context ends: never another request's.
   */
  set(value: T): void {
    if (!Variable.#is(this)) throw errors.invalidReceiver('Variable.prototype.set', this);
    if (implementation === 'AsyncContext') throw errors.setUnsupported(this.#owner());
    if (storage.getStore() === undefined) {
      throw errors.noScope(this.#owner(), 'set', `Wrap the call in ${this.#owner()}.run(value, fn).`);
    }
    storage.enterWith(this.#frameWith(value));
  }

  #frameWith(value: T) {
    return frameWith(storage.getStore(), this.#slot, value === undefined ? undefinedValue : value);
  }

  #owner(): string {
    return this.#name === '' ? 'Variable' : `Variable(${JSON.stringify(this.#name)})`;
  }
}

Object.defineProperty(Variable.prototype, Symbol.toStringTag, { value: 'AsyncContext.Variable', configurable: true });

/** GetPrototypeFromConstructor: a `new.target` whose `prototype` is no object gives `fallback`, not Object.prototype. */
export function ownPrototype(instance: object, newTarget: unknown, fallback: object): void {
  if (Object.getPrototypeOf(instance) !== Object.prototype) return;
  const prototype: unknown = (newTarget as { prototype?: unknown }).prototype;
  if ((typeof prototype !== 'object' || prototype === null) && typeof prototype !== 'function') {
    Object.setPrototypeOf(instance, fallback);
  }
}

/** What attachValue() returns: `dispose()` undoes the attach, once. */
export interface AttachedValue {
  dispose(): void;
}

/**
 * Enters `value` for `variable` in place until `dispose()` (OpenTelemetry's ContextManager.attach()), which restores
 * the frame from before where nothing changed it since. As with enterWith, before an async function's first
 * `await` it reaches the caller too (nodejs/node#45848).
 */
export function attachValue<T>(variable: Variable<T>, value: T): AttachedValue {
  const slot = slotOf(variable, 'attachValue(variable)');
  if (implementation === 'AsyncContext') throw errors.setUnsupported(variable.name);
  const prior = storage.getStore();
  const entered = frameWith(prior, slot, value === undefined ? undefinedValue : value);
  storage.enterWith(entered);
  let disposed = false;
  return {
    dispose() {
      if (disposed) return;
      disposed = true;
      const now = storage.getStore();
      storage.enterWith(now === entered ? (prior as never) : frameWith(now, slot, prior?.[slot]));
    },
  };
}

/** The values current now with `variable` holding `value`, captured without entering anything. */
export function captureWith<T>(variable: Variable<T>, value: T): CapturedContext {
  const slot = slotOf(variable, 'captureWith(variable)');
  return frameWith(
    storage.getStore(),
    slot,
    value === undefined ? undefinedValue : value,
  ) as unknown as CapturedContext;
}

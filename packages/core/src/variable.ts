import { errors } from './errors.js';
import { allocateSlot, frameWith, storage } from './storage.js';
import { assertFunction, readOptions } from './validate.js';

export interface VariableOptions<T> {
  /** Shown in error messages and debuggers. */
  name?: string;
  /** What get() returns where no value has been set in the current flow. */
  defaultValue?: T;
}

/**
 * A slot holding `undefined` on purpose, so that `run(undefined, fn)` hides an outer value and the default
 * (as TC39 AsyncContext.Variable does), while an empty slot falls back to the default.
 */
const kUndefined = Symbol.for('@ambient/core.undefined');

/**
 * A single typed value that follows the async flow: TC39 `AsyncContext.Variable`'s shape, plus `set()` with
 * the copy-on-write semantics of Python's `ContextVar.set`.
 */
export class Variable<T> {
  readonly #slot: number;
  readonly #name: string;
  readonly #defaultValue: T | undefined;

  constructor(options?: VariableOptions<T>) {
    const { name = '', defaultValue } = readOptions<VariableOptions<T>>(options, 'new Variable(options)');
    this.#name = name;
    this.#defaultValue = defaultValue;
    this.#slot = allocateSlot();
  }

  get name(): string {
    return this.#name;
  }

  /** The value in the current flow, or the default value where none has been set. */
  get(): T | undefined {
    const frame = storage.getStore();
    if (frame !== undefined) {
      const value = frame[this.#slot];
      if (value !== undefined) return value === kUndefined ? undefined : (value as T);
    }
    return this.#defaultValue;
  }

  /** Calls `fn(...args)` with this variable holding `value`; the previous value is back when `fn` returns or throws. */
  run<R, A extends unknown[]>(value: T, fn: (...args: A) => R, ...args: A): R {
    assertFunction(fn, `${this.#owner()}.run(value, fn)`);
    const frame = frameWith(storage.getStore(), this.#slot, value === undefined ? kUndefined : value);
    return storage.run(frame, fn, ...args);
  }

  /**
   * Changes the value for the rest of the current synchronous execution and every continuation created after
   * this call. Continuations created before it keep their value, and the change ends with the innermost
   * enclosing run() (of any Variable, Snapshot or Context), so it can never reach another request.
   */
  set(value: T): void {
    const frame = storage.getStore();
    if (frame === undefined) throw errors.noScope(this.#owner(), 'set');
    storage.enterWith(frameWith(frame, this.#slot, value === undefined ? kUndefined : value));
  }

  #owner(): string {
    return this.#name === '' ? 'Variable' : `Variable(${JSON.stringify(this.#name)})`;
  }
}

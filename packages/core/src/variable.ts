import { errors } from './errors.js';
import { wrapInFrame } from './run-in-frame.js';
import * as shared from './storage.js';
import { notAFunction } from './validate.js';

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

/*
 * Hot-path bindings are this module's own consts: V8 constant-folds a module's const bindings but not
 * imported ones, and esbuild-style bundling (which rewrites them to var) is avoided for the same reason.
 * Private slots are described, k-prefixed symbols rather than #private fields, which were slower on the same
 * path. Both are kept because benchmarks/core-micro.mjs holds get/run to a ratio of raw AsyncLocalStorage
 * (figures: benchmarks/README.md#why-the-code-looks-the-way-it-does).
 */
const { storage, frameWith, runWithFrame, allocateSlot } = shared;
const kSlot = Symbol('ambient.Variable.slot');
const kDefaultValue = Symbol('ambient.Variable.defaultValue');

/**
 * A single typed value that follows the async flow: TC39 `AsyncContext.Variable`'s shape, plus `set()` with
 * the copy-on-write semantics of Python's `ContextVar.set`.
 */
export class Variable<T> {
  declare readonly name: string;
  declare readonly [kSlot]: number;
  declare readonly [kDefaultValue]: T | undefined;

  constructor(options?: VariableOptions<T>) {
    const { name = '', defaultValue } = readVariableOptions(options);
    this.name = name;
    this[kDefaultValue] = defaultValue;
    this[kSlot] = allocateSlot();
  }

  /** The value in the current flow, or the default value where none has been set. */
  get(): T | undefined {
    const frame = storage.getStore();
    if (frame !== undefined) {
      const value = frame[this[kSlot]];
      if (value !== undefined) return value === kUndefined ? undefined : (value as T);
    }
    return this[kDefaultValue];
  }

  /** Calls `fn(...args)` with this variable holding `value`; the previous value is back when `fn` returns or throws. */
  run<R, A extends unknown[]>(value: T, fn: (...args: A) => R, ...args: A): R {
    if (typeof fn !== 'function') throw notAFunction(`${owner(this.name)}.run(value, fn)`, fn);
    const frame = frameWith(storage.getStore(), this[kSlot], value === undefined ? kUndefined : value);
    return runWithFrame(frame, fn, ...args);
  }

  /**
   * `fn`, bound to the values current now with this variable holding `value`: wherever it is called later, it
   * sees what `run(value, () => Snapshot.wrap(fn))` would have bound, with nothing entered now. `this` and the
   * arguments pass through.
   */
  wrap<F extends (...args: never[]) => unknown>(value: T, fn: F): F {
    if (typeof fn !== 'function') throw notAFunction(`${owner(this.name)}.wrap(value, fn)`, fn);
    return wrapInFrame(frameWith(storage.getStore(), this[kSlot], value === undefined ? kUndefined : value), fn);
  }

  /**
   * Changes the value for the rest of the current synchronous execution and every continuation created after
   * this call. Continuations created before it keep their value, and the change ends with the innermost
   * enclosing run() (of any Variable, Snapshot or Context), so it can never reach another request.
   */
  set(value: T): void {
    const frame = storage.getStore();
    if (frame === undefined)
      throw errors.noScope(owner(this.name), 'set', `Wrap the call in ${owner(this.name)}.run(value, fn).`);
    storage.enterWith(frameWith(frame, this[kSlot], value === undefined ? kUndefined : value));
  }
}

/**
 * Variable is the TC39 AsyncContext surface, so it reads its options as the proposal does rather than through
 * the strict readOptions every other Ambient API uses: unknown keys are not rejected (tc39/proposal-async-context,
 * the AsyncContext.Variable constructor reads only `name` and `defaultValue`).
 */
function readVariableOptions<T>(options: VariableOptions<T> | undefined): VariableOptions<T> {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw errors.invalidArgument('new Variable(options)', 'an options object or undefined', options);
  }
  if (options.name !== undefined && typeof options.name !== 'string') {
    throw errors.invalidArgument('new Variable(options): options.name', 'a string', options.name);
  }
  return options;
}

function owner(name: string): string {
  return name === '' ? 'Variable' : `Variable(${JSON.stringify(name)})`;
}

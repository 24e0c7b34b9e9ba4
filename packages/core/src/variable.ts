import type { CapturedContext } from './channel-context.js';
import { errors } from './errors.js';
import { wrapInFrame } from './run-in-frame.js';
import { snapshotOfFrame, type Snapshot } from './snapshot.js';
import * as shared from './storage.js';
import type { Frame } from './storage.js';
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
const kName = Symbol('ambient.Variable.name');

/**
 * A single typed value that follows the async flow: TC39 `AsyncContext.Variable`'s shape, plus `set()` with
 * the copy-on-write semantics of Python's `ContextVar.set`.
 */
export class Variable<T> {
  declare readonly [kSlot]: number;
  declare readonly [kDefaultValue]: T | undefined;
  declare readonly [kName]: string;

  /**
   * Reads `options` as the AsyncContext.Variable constructor does (tc39/proposal-async-context, spec.html):
   * any value is accepted and only an object is read; `name` is converted with ToString when the object has
   * that property at all (so `{ name: undefined }` names the variable "undefined", and a Symbol throws a
   * TypeError), then `defaultValue` is read, in that order. Unknown keys are not rejected here, unlike every
   * other Ambient API.
   */
  constructor(options?: VariableOptions<T>) {
    let name = '';
    let defaultValue: T | undefined;
    const given: unknown = options;
    if ((typeof given === 'object' && given !== null) || typeof given === 'function') {
      const read = given as VariableOptions<T>;
      if ('name' in read) name = nameToString(read.name);
      defaultValue = read.defaultValue;
    }
    this[kName] = name;
    this[kDefaultValue] = defaultValue;
    this[kSlot] = allocateSlot();
  }

  /** The name given at construction (`''` by default): an accessor on the prototype, as in the proposal. */
  get name(): string {
    return checkedReceiver(this, 'get Variable.prototype.name')[kName];
  }

  /** The value in the current flow, or the default value where none has been set. */
  get(): T | undefined {
    const slot = (this as Partial<Variable<T>> | undefined)?.[kSlot];
    const frame = storage.getStore();
    if (frame !== undefined) {
      // A foreign receiver has no slot: frame[undefined] misses, and the check below throws.
      const value = frame[slot as number];
      if (value !== undefined) return value === kUndefined ? undefined : (value as T);
    }
    // The spec's RequireInternalSlot, on the path of a miss only: a found value needs no second check.
    if (slot === undefined) throw errors.invalidReceiver('Variable.prototype.get', this);
    return this[kDefaultValue];
  }

  /** Calls `fn(...args)` with this variable holding `value`; the previous value is back when `fn` returns or throws. */
  run<R, A extends unknown[]>(value: T, fn: (...args: A) => R, ...args: A): R {
    const slot = checkedReceiver(this, 'Variable.prototype.run')[kSlot];
    if (typeof fn !== 'function') throw notAFunction(`${owner(this[kName])}.run(value, fn)`, fn);
    const frame = frameWith(storage.getStore(), slot, value === undefined ? kUndefined : value);
    return runWithFrame(frame, fn, ...args);
  }

  /**
   * `fn`, bound to the values current now with this variable holding `value`: wherever it is called later, it
   * sees what `run(value, () => Snapshot.wrap(fn))` would have bound, with nothing entered now. `this` and the
   * arguments pass through.
   */
  wrap<F extends (...args: never[]) => unknown>(value: T, fn: F): F {
    const slot = checkedReceiver(this, 'Variable.prototype.wrap')[kSlot];
    if (typeof fn !== 'function') throw notAFunction(`${owner(this[kName])}.wrap(value, fn)`, fn);
    return wrapInFrame(frameWith(storage.getStore(), slot, value === undefined ? kUndefined : value), fn);
  }

  /**
   * Changes the value for the rest of the current synchronous execution and every continuation created after
   * this call. Continuations created before it keep their value, and the change ends with the innermost
   * enclosing run() (of any Variable, Snapshot or Context), so it can never reach another request.
   */
  set(value: T): void {
    const slot = checkedReceiver(this, 'Variable.prototype.set')[kSlot];
    const frame = storage.getStore();
    if (frame === undefined) {
      const who = owner(this[kName]);
      throw errors.noScope(who, 'set', `Wrap the call in ${who}.run(value, fn).`);
    }
    storage.enterWith(frameWith(frame, slot, value === undefined ? kUndefined : value));
  }
}

/** What attachValue() returns: `dispose()` undoes the attach, once; later calls do nothing. */
export interface AttachedValue {
  dispose(): void;
}

/**
 * Enters `value` for `variable` in place, as Variable#set does but also outside any scope, and returns a token
 * whose `dispose()` gives the variable back the value it had: OpenTelemetry's ContextManager.attach()
 * (@opentelemetry/api 1.10). Like AsyncLocalStorage#enterWith, the change reaches the rest of the current
 * synchronous execution and every continuation created after it, never one created before it; inside an
 * async function before its first `await` it also reaches the caller (nodejs/node#45848, nodejs/node#58104), which is why
 * adapters that can wrap a callback use run() instead.
 * When nothing else changed the current values in between, dispose() restores the very values from before, so
 * an attach outside any scope leaves no scope behind; otherwise it resets only this variable's value.
 */
export function attachValue<T>(variable: Variable<T>, value: T): AttachedValue {
  const slot = checkedReceiver(variable, 'attachValue(variable)')[kSlot];
  const prior = storage.getStore();
  const entered = frameWith(prior, slot, value === undefined ? kUndefined : value);
  storage.enterWith(entered);
  let disposed = false;
  return {
    dispose() {
      if (disposed) return;
      disposed = true;
      const now = storage.getStore();
      storage.enterWith((now === entered ? prior : frameWith(now, slot, prior?.[slot])) as Frame);
    },
  };
}

/** The values current now with `variable` holding `value`, for a context manager's bind(): nothing is entered. */
export function snapshotWith<T>(variable: Variable<T>, value: T): Snapshot {
  return snapshotOfFrame(framePlus(variable, value, 'snapshotWith(variable)'));
}

/**
 * snapshotWith, as a captured context rather than a Snapshot: for a bound function that runs on every event of
 * an emitter (applyInCapturedContext), where Snapshot#run's checks and its rest array are paid on each call.
 */
export function captureWith<T>(variable: Variable<T>, value: T): CapturedContext {
  return framePlus(variable, value, 'captureWith(variable)') as unknown as CapturedContext;
}

function framePlus<T>(variable: Variable<T>, value: T, where: string): Frame {
  const slot = checkedReceiver(variable, where)[kSlot];
  return frameWith(storage.getStore(), slot, value === undefined ? kUndefined : value);
}

Object.defineProperty(Variable.prototype, Symbol.toStringTag, { value: 'AsyncContext.Variable', configurable: true });

/** The spec's RequireInternalSlot: a method called on anything but a Variable throws a TypeError. */
function checkedReceiver<T>(receiver: Variable<T>, method: string): Variable<T> {
  if (typeof (receiver as Partial<Variable<T>> | undefined)?.[kSlot] !== 'number') {
    throw errors.invalidReceiver(method, receiver);
  }
  return receiver;
}

/** ToString, except that a Symbol (which ToString rejects) gets our TypeError with its stable code. */
function nameToString(name: unknown): string {
  if (typeof name === 'symbol')
    throw errors.invalidArgument('new Variable(options): options.name', 'a value ToString accepts', name);
  return String(name);
}

function owner(name: string): string {
  return name === '' ? 'Variable' : `Variable(${JSON.stringify(name)})`;
}

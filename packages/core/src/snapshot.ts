import { runInFrame, wrapInFrame } from './captured-context.js';
import { errors, notAFunction } from './errors.js';
import { storage, type Frame } from './registry.js';
import { ownPrototype } from './variable.js';

/** The values of every Variable and Context at the moment of construction: TC39 `AsyncContext.Snapshot`'s shape. */
export class Snapshot {
  readonly #frame: Frame | undefined;

  constructor() {
    this.#frame = storage.getStore();
    ownPrototype(this, new.target, Snapshot.prototype);
  }

  /** Calls `fn(...args)` with the captured values; the caller's values are back when it returns or throws. */
  run<R, A extends unknown[]>(fn: (...args: A) => R, ...args: A): R {
    if (typeof this !== 'object' || this === null || !(#frame in this)) {
      throw errors.invalidReceiver('Snapshot.prototype.run', this);
    }
    if (typeof fn !== 'function') throw notAFunction('Snapshot#run(fn)', fn);
    return runInFrame(this.#frame, fn, undefined, args);
  }

  /** `fn`, bound to the values current now: wherever it is called later, it sees these. `this` passes through. */
  static wrap<F extends (...args: never[]) => unknown>(fn: F): F {
    if (typeof fn !== 'function') throw notAFunction('Snapshot.wrap(fn)', fn);
    return wrapInFrame(storage.getStore(), fn);
  }
}

Object.defineProperty(Snapshot.prototype, Symbol.toStringTag, { value: 'AsyncContext.Snapshot', configurable: true });

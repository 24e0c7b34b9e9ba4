import { runInFrame, wrapInFrame } from './run-in-frame.js';
import { storage, type Frame } from './storage.js';
import { errors } from './errors.js';
import { notAFunction } from './validate.js';

/** A Snapshot of `frame` rather than of the current values: for snapshotWith() (variable.ts). */
export let snapshotOfFrame: (frame: Frame) => Snapshot;

/** The values of every Variable and Context at the moment of construction: TC39 `AsyncContext.Snapshot`'s shape. */
export class Snapshot {
  #frame: Frame | undefined;

  constructor() {
    this.#frame = storage.getStore();
  }

  static {
    snapshotOfFrame = (frame) => {
      const snapshot = new Snapshot();
      snapshot.#frame = frame;
      return snapshot;
    };
  }

  /** Calls `fn(...args)` with the captured values; the caller's values are back when it returns or throws. */
  run<R, A extends unknown[]>(fn: (...args: A) => R, ...args: A): R {
    // The spec's RequireInternalSlot: on anything but a Snapshot, a TypeError with our code.
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

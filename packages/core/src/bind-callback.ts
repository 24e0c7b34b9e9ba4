import { runInFrame } from './captured-context.js';
import { notAFunction } from './errors.js';
import { forwardingFunction, lengthOf } from './forwarding-function.js';
import { storage, type Frame } from './registry.js';

type Callback = (...args: never[]) => unknown;

/**
 * `callback`, bound to the values current now for its first call: a pool calls a queued callback from whoever
 * released the connection (DataDog/dd-trace-js#8826, brianc/node-postgres#3650). Later calls run as called,
 * the callback held weakly, since some libraries keep one for ever (pg after a connect error).
 */
export function bindCallback<F extends Callback>(callback: F): F {
  if (typeof callback !== 'function') throw notAFunction('bindCallback(callback)', callback);
  return boundForFirstCall(callback, true);
}

/** bindCallback for a callback its caller drops after calling it (a query's): held strongly, as the caller does. */
export function bindFirstCall<F extends Callback>(callback: F): F {
  if (typeof callback !== 'function') throw notAFunction('bindFirstCall(callback)', callback);
  return boundForFirstCall(callback, false);
}

function boundForFirstCall<F extends Callback>(callback: F, weakAfter: boolean): F {
  return forwardingFunction(
    lengthOf(callback),
    callFirstInFrame,
    new FirstCall(storage.getStore(), callback, weakAfter),
    undefined,
  ) as unknown as F;
}

/** A binding's state: one object per binding, shared by one forward for all of them. */
class FirstCall {
  pending = true;
  weak: WeakRef<Callback> | undefined;
  constructor(
    public frame: Frame | undefined,
    public callback: Callback | undefined,
    readonly weakAfter: boolean,
  ) {}
}

function callFirstInFrame(thisArg: unknown, args: ArrayLike<unknown>, call: FirstCall): unknown {
  if (!call.pending) {
    const later = call.weakAfter ? call.weak?.deref() : call.callback;
    return later === undefined ? undefined : (Reflect.apply(later, thisArg, args) as unknown);
  }
  const frame = call.frame;
  const first = call.callback!;
  call.pending = false;
  call.frame = undefined;
  if (call.weakAfter) {
    call.weak = new WeakRef(first);
    call.callback = undefined;
  }
  return runInFrame(frame, first, thisArg, args);
}

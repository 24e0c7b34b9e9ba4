import { lengthOf } from './copy-name-and-length.js';
import { forwardingFunction } from './forwarding-function.js';
import { runInFrame } from './run-in-frame.js';
import { storage, type Frame } from './storage.js';
import { notAFunction } from './validate.js';

/**
 * `callback`, bound to the values current now for its first call, as a driver's callback must be: a pool calls a
 * queued `connect`/`getConnection` callback from whoever released the connection, and a query callback from
 * the socket's events, so without this it runs in another request (mysql2 before 3.20, pg and pg-pool today:
 * DataDog/dd-trace-js#8826, brianc/node-postgres#3650). After that first call the values are dropped and
 * later calls run as called: some drivers keep a callback for ever (pg keeps a client's connect callback as
 * `_connectionCallback` after an error), and holding the request's values there would keep the request alive; the callback itself is then
 * held weakly, so a later call reaches it only while something else keeps it. For a listener called many
 * times use Snapshot.wrap or bindEmitter. `length` is kept (drivers tell callbacks apart by arity); `this` and
 * the arguments pass through.
 *
 *     pool.connect(bindCallback((err, client, release) => { … }));
 */
export function bindCallback<F extends (...args: never[]) => unknown>(callback: F): F {
  if (typeof callback !== 'function') throw notAFunction('bindCallback(callback)', callback);
  // After the first call the callback is held weakly too: it may close over a promise of the request (a
  // `new Promise((resolve) => pool.query(sql, resolve))`), and a library that keeps this function for ever must
  // not keep that alive. Where it is still reachable otherwise, later calls reach it.
  return boundForFirstCall(callback, true);
}

/**
 * bindCallback for a callback its caller drops once it has called it, as a driver drops a query's (pg's Query,
 * pg-pool's queued request, mysql2's command): the same first call in the values current now, later calls as
 * called, but the callback held as the caller itself would hold it, with no WeakRef. It then keeps alive nothing
 * the caller would not keep without it, and a WeakRef is dear: a pg `pool.query` binds three, and they cost
 * its guard 2,103 of 9,817 instructions on Node 24, about 0.3 µs of issue #16's budget of 1 µs
 * (benchmarks/drivers-instructions.mjs; timed with and without them in drivers.mjs). Where a caller may keep a
 * callback for ever (pg's connect callback), bindCallback.
 */
export function bindFirstCall<F extends (...args: never[]) => unknown>(callback: F): F {
  if (typeof callback !== 'function') throw notAFunction('bindFirstCall(callback)', callback);
  return boundForFirstCall(callback, false);
}

type Callback = (...args: never[]) => unknown;

/** bindCallback and bindFirstCall: `callback` in the values current now for its first call, then as called. */
function boundForFirstCall<F extends Callback>(callback: F, weakAfter: boolean): F {
  return forwardingFunction(
    arityOf(callback),
    callFirstInFrame,
    new FirstCall(storage.getStore(), callback, weakAfter),
    undefined,
  ) as unknown as F;
}

/** A binding's state: one object per binding, where a closure would need a context and a function more. */
class FirstCall {
  pending = true;
  /** Where the callback is held after the first call when `weakAfter`. */
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

/**
 * The callback's `length`, read directly: a driver binds two or three callbacks per query, and lengthOf's
 * HasOwnProperty and Get steps (what Snapshot.wrap owes the spec) cost 0.3 µs a pg query on Node 24, more than
 * the rest of the binding (issue #16; benchmarks/drivers.mjs). Anything but a small whole number, as from a
 * redefined `length`, takes those steps.
 */
function arityOf(callback: (...args: never[]) => unknown): number {
  const length: unknown = callback.length;
  return typeof length === 'number' && length >= 0 && length <= 4 && Math.trunc(length) === length
    ? length
    : lengthOf(callback);
}

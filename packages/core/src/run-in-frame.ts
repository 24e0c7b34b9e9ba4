import { functionWithNameAndLength } from './copy-name-and-length.js';
import { implementation, runWithFrame, storage, type Frame } from './storage.js';

/**
 * Calls `fn` with `thisArg` and `args` inside `frame` (captured outside any scope, `frame` is undefined: then
 * inside an empty scope, or in no scope when none is current either), restoring the caller's frame when it
 * returns or throws. Passing Reflect.apply and its arguments through run() avoids allocating a closure per
 * call. One of two functions, chosen once for the process's implementation, so that each stays as small as V8
 * inlines best: a listener bound by AmbientContextManager runs through this on every event.
 */
export const runInFrame: <R>(
  frame: Frame | undefined,
  fn: (...args: never) => R,
  thisArg: unknown,
  args: ArrayLike<unknown>,
) => R = implementation === 'async_hooks' ? runInFrameInPlace : runInFrameThroughRun;

function runInFrameThroughRun<R>(
  frame: Frame | undefined,
  fn: (...args: never) => R,
  thisArg: unknown,
  args: ArrayLike<unknown>,
): R {
  if (frame === storage.getStore()) return callInCurrentFrame(frame, fn, thisArg, args);
  return runWithFrame(frame ?? [], Reflect.apply, fn, thisArg, args) as R;
}

/**
 * On the async_hooks implementation (Node 20 and 22, or 24+ with --no-async-context-frame) a frame is entered in
 * place and the caller's put back in `finally`, as runWithFrame does there (storage.ts), but with the caller's
 * frame read once and `fn` applied directly: going through runWithFrame's rest array, spread call and second
 * getStore() cost about 66 instructions an event of a listener bound by AmbientContextManager (Node 22.23: 850
 * with it, 784 without). This path does not go through the registry's runWithFrame, which another copy of core
 * may have made: a later copy that changed how frames are entered would have to change this too.
 */
function runInFrameInPlace<R>(
  frame: Frame | undefined,
  fn: (...args: never) => R,
  thisArg: unknown,
  args: ArrayLike<unknown>,
): R {
  const prior = storage.getStore();
  if (frame === prior) return callInCurrentFrame(frame, fn, thisArg, args);
  storage.enterWith(frame ?? []);
  try {
    return Reflect.apply(fn, thisArg, args) as R;
  } finally {
    storage.enterWith(prior as Frame);
  }
}

/**
 * `fn`, each call of it run in `frame` (as runInFrame does) with the caller's `this` and arguments: what
 * Snapshot.wrap and Variable#wrap return. It is not a constructor, and has the `name` ("wrapped fn") and
 * `length` that the spec's CopyNameAndLength gives it, so code that inspects a callback's arity sees the
 * original's: express calls a middleware for errors only when it declares four parameters (expressjs.com,
 * "Error handling").
 */
export function wrapInFrame<F extends (...args: never[]) => unknown>(frame: Frame | undefined, fn: F): F {
  return functionWithNameAndLength(fn, 'wrapped', (thisArg, args) =>
    runInFrame(frame, fn, thisArg, args),
  ) as unknown as F;
}

/**
 * `frame` is already current (or no frame is, and none was captured), as when Node emits `end` on a request
 * in the context that its `finish` was emitted in, where it also added the listener (node:_http_server,
 * resOnFinish and clearIncoming): nothing to enter. On Node 24 an AsyncLocalStorage#run costs two
 * AsyncContextFrame copies, one to enter and one to restore, whatever it enters. Only a Variable#set inside
 * `fn` changes the frame, and like any run() this one ends it.
 */
function callInCurrentFrame<R>(
  frame: Frame | undefined,
  fn: (...args: never) => R,
  thisArg: unknown,
  args: ArrayLike<unknown>,
): R {
  try {
    return Reflect.apply(fn, thisArg, args) as R;
  } finally {
    if (storage.getStore() !== frame) storage.enterWith(frame as Frame);
  }
}

import { enterableCopy, runWithFrame, type Frame } from './storage.js';

/**
 * Calls `fn` with `thisArg` and `args` inside `frame` (or inside an empty scope when `frame` is undefined),
 * restoring the caller's frame when it returns or throws. Passing Reflect.apply and its arguments through
 * run() avoids allocating a closure per call.
 */
export function runInFrame<R>(
  frame: Frame | undefined,
  fn: (...args: never[]) => R,
  thisArg: unknown,
  args: readonly unknown[],
): R {
  return runWithFrame(enterableCopy(frame), Reflect.apply, fn, thisArg, args) as R;
}

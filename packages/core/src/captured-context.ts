import type { AsyncLocalStorage } from 'node:async_hooks';
import type { Channel } from 'node:diagnostics_channel';
import { functionShapedLike } from './forwarding-function.js';
import { implementation, runWithFrame, storage, type Frame } from './registry.js';

/** A frame in which no Variable and no Context holds a value: what the root and an empty capture run in. */
export const rootFrame: Frame = Object.freeze([]);

declare const kCaptured: unique symbol;

/** The values current where it was captured (every Variable and Context), opaque. */
export interface CapturedContext {
  readonly [kCaptured]: true;
}

/** The AsyncLocalStorage itself, for diagnostics_channel's bindStore; none on the AsyncContext backend. */
const channelStorage = implementation === 'AsyncContext' ? undefined : (storage as AsyncLocalStorage<Frame>);

/**
 * Calls `fn` with `thisArg` and `args` inside `frame` (`undefined`: captured outside any scope, so the root),
 * restoring the caller's frame when it returns or throws.
 */
export function runInFrame<R>(
  frame: Frame | undefined,
  fn: (...args: never) => R,
  thisArg: unknown,
  args: ArrayLike<unknown>,
): R {
  if (frame !== storage.getStore()) return runWithFrame(frame ?? rootFrame, Reflect.apply, fn, thisArg, args) as R;
  // Already current, as when Node emits a request's `end` in the context of its `finish`: nothing to enter, and
  // only a Variable#set inside `fn` can change the frame, which ends with `fn` as it would with run().
  try {
    return Reflect.apply(fn, thisArg, args) as R;
  } finally {
    if (storage.getStore() !== frame) storage.enterWith(frame as Frame);
  }
}

/** `fn`, each call of it run in `frame` with the caller's `this` and arguments, shaped as Snapshot.wrap's result. */
export function wrapInFrame<F extends (...args: never[]) => unknown>(frame: Frame | undefined, fn: F): F {
  return functionShapedLike(fn, (thisArg, args) => runInFrame(frame, fn, thisArg, args), 'wrapped') as unknown as F;
}

/** The values current now, or `undefined` outside any scope. */
export function captureContext(): CapturedContext | undefined {
  return storage.getStore() as CapturedContext | undefined;
}

/**
 * Calls `fn` in `captured` (`undefined`: outside any scope), with `thisArg` and `args` (an array or an
 * `arguments` object) passed on as they are, and restores the caller's values after.
 */
export function runInCapturedContext<T, A extends readonly unknown[], R>(
  captured: CapturedContext | undefined,
  fn: (this: T, ...args: A) => R,
  thisArg?: T,
  args?: A | IArguments,
): R {
  return runInFrame(captured as Frame | undefined, fn as (...args: never) => R, thisArg, args ?? []);
}

/**
 * Makes `captured` current in place, as AsyncLocalStorage#enterWith does, for a diagnostics_channel subscriber
 * that brackets a traced call between its `start` and its `end` (Node publishes `end` when the call returns or
 * throws): it must stay subscribed until that `end`, or the caller stays in what was entered. Returns false on
 * the AsyncContext backend, where nothing can be entered.
 */
export function enterCapturedContext(captured: CapturedContext | undefined): boolean {
  if (channelStorage === undefined) return false;
  channelStorage.enterWith(captured as unknown as Frame);
  return true;
}

/**
 * `Channel#bindStore` on Ambient's storage: what `channel` wraps (a TracingChannel's `start`, or the callback its
 * `asyncStart` runs) runs in the context `transform` returns for each message. `transform` must not throw.
 * Returns the unbinding function, or `undefined` on the AsyncContext backend.
 */
export function bindChannelContext(
  channel: Channel,
  transform: (message: unknown) => CapturedContext | undefined,
): (() => void) | undefined {
  const als = channelStorage;
  if (als === undefined) return undefined;
  channel.bindStore(als, transform);
  return () => {
    channel.unbindStore(als);
  };
}

/** Is `value` the AsyncLocalStorage Ambient keeps its frames in? */
export function isAmbientStorage(value: unknown): boolean {
  return channelStorage !== undefined && value === channelStorage;
}

import type { AsyncLocalStorage } from 'node:async_hooks';
import type { Channel } from 'node:diagnostics_channel';
import { functionShapedLike } from './forwarding-function.js';
import { implementation, runWithFrame, storage, type Frame } from './registry.js';

/**
 * A frame in which no Variable and no Context holds a value: what the root and an empty capture run in. Not
 * frozen: a frozen array is copied on a slow path, and frameWith copies before it writes anyway.
 */
export const rootFrame: Frame = [];

declare const kCaptured: unique symbol;

/** The values current where it was captured (every Variable and Context), opaque. */
export interface CapturedContext {
  readonly [kCaptured]: true;
}

/** The AsyncLocalStorage itself, for diagnostics_channel's bindStore; none on the AsyncContext backend. */
const channelStorage = implementation === 'AsyncContext' ? undefined : (storage as AsyncLocalStorage<Frame>);

/** Calls `fn` with `thisArg` and `args` in `frame` (`undefined`: the root), restoring the caller's after. */
export function runInFrame<R>(
  frame: Frame | undefined,
  fn: (...args: never) => R,
  thisArg: unknown,
  args: ArrayLike<unknown>,
): R {
  if (frame !== storage.getStore()) return runWithFrame(frame ?? rootFrame, fn, thisArg, args);
  // Already current (Node emits a request's `end` in its `finish`'s context): only a set() inside `fn` is undone.
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

export function captureContext(): CapturedContext | undefined {
  return storage.getStore() as CapturedContext | undefined;
}

/** Calls `fn` in `captured` (`undefined`: outside any scope) with `thisArg` and `args` as they are. */
export function runInCapturedContext<T, A extends readonly unknown[], R>(
  captured: CapturedContext | undefined,
  fn: (this: T, ...args: A) => R,
  thisArg?: T,
  args?: A | IArguments,
): R {
  return runInFrame(captured as Frame | undefined, fn as (...args: never) => R, thisArg, args ?? []);
}

/**
 * Makes `captured` current in place, as enterWith does, for a subscriber that brackets a traced call between its
 * `start` and its `end`: it must hear that `end`. Returns false on the AsyncContext backend (nothing entered).
 */
export function enterCapturedContext(captured: CapturedContext | undefined): boolean {
  if (channelStorage === undefined) return false;
  channelStorage.enterWith(captured as unknown as Frame);
  return true;
}

/**
 * `Channel#bindStore` on Ambient's storage: what `channel` wraps runs in the context `transform` (which must not
 * throw) returns. Returns the unbinding function, or `undefined` on the AsyncContext backend.
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

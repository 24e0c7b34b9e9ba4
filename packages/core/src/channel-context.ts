import type { Channel } from 'node:diagnostics_channel';
import { runInFrame } from './run-in-frame.js';
import { channelStorage, storage, type Frame } from './storage.js';

declare const kCaptured: unique symbol;

/** The values current where it was captured, opaque: what a diagnostics_channel subscriber keeps for later. */
export interface CapturedContext {
  readonly [kCaptured]: true;
}

/** The values current now (every Variable and Context), or `undefined` outside any scope. */
export function captureContext(): CapturedContext | undefined {
  return storage.getStore() as CapturedContext | undefined;
}

/** Calls `fn` with `captured` current (`undefined`: outside any scope), restoring the caller's values after. */
export function runInCapturedContext<R>(captured: CapturedContext | undefined, fn: () => R): R {
  return runInFrame(captured as Frame | undefined, fn, undefined, []);
}

/**
 * runInCapturedContext with the caller's `this` and arguments passed on as they are, for a bound function that
 * forwards them (a bound emitter's listener, on every event): no closure and no array made per call.
 */
export function applyInCapturedContext<T, A extends readonly unknown[], R>(
  captured: CapturedContext | undefined,
  fn: (this: T, ...args: A) => R,
  thisArg: T,
  args: A | IArguments,
): R {
  return runInFrame(captured as Frame | undefined, fn as (...args: never) => R, thisArg, args);
}

/**
 * Makes `captured` current in place (`undefined`: no scope), as AsyncLocalStorage#enterWith does, until the same
 * subscriber enters what it found before: for one that brackets a traced call between its `start` and `end`
 * events, which Node publishes around the call (traceCallback, tracePromise, Node 20 to 26) and in which it has
 * nothing to enter where it would rather not. Channel#bindStore enters on every call, and on Node 26 at the cost
 * of two AsyncContextFrame copies even when the store is the one current (its RunStoresScope has no shortcut).
 * The subscriber that entered must hear that `end`: one unsubscribed in between leaves its caller in what it
 * entered, and on the async_hooks implementation (Node 20, 22) for good, since entering there changes the
 * current async resource. Returns false where values do not live in an AsyncLocalStorage (the AsyncContext backend): nothing entered.
 */
export function enterCapturedContext(captured: CapturedContext | undefined): boolean {
  const als = channelStorage;
  if (als === undefined) return false;
  als.enterWith(captured as unknown as Frame);
  return true;
}

/**
 * Makes `channel` run what it wraps in the context `transform` returns for each message (`undefined`: outside
 * any scope), through Node's `Channel#bindStore`: a TracingChannel's `asyncStart` runs a traced callback with
 * it (`traceCallback`, Node 20 to 26), its `start` the traced call itself. This is how a driver that publishes
 * TracingChannel events (mysql2 3.20+, ioredis 5.11+, @redis/client 5.12+) gets a callback back into its
 * caller's context without patching. `transform` must not throw: Node reports a throw from it as an uncaught
 * exception. Returns the function that unbinds, or `undefined` where values do not live in an
 * AsyncLocalStorage (the AsyncContext backend), which a channel cannot bind.
 */
export function bindChannelContext(
  channel: Channel,
  transform: (message: unknown) => CapturedContext | undefined,
): (() => void) | undefined {
  const als = channelStorage;
  if (als === undefined) return undefined;
  // A captured context is a frame (captureContext); undefined runs outside any scope, as als.run(undefined) does.
  channel.bindStore(als, transform);
  return () => {
    channel.unbindStore(als);
  };
}

/** Is `value` the AsyncLocalStorage Ambient keeps its frames in (for a wrapper of AsyncLocalStorage's methods)? */
export function isAmbientStorage(value: unknown): boolean {
  return channelStorage !== undefined && value === channelStorage;
}

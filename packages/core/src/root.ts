import { implementation, runWithFrame, type Frame, type Implementation } from './storage.js';
import { notAFunction } from './validate.js';

/** A frame in which no Variable and no Context holds a value: the root every job and request starts from. */
const rootFrame: Frame = Object.freeze([]);

/**
 * Calls `fn(...args)` outside every scope: no Variable, Context or request is visible inside, and nothing
 * created inside (a timer, a promise, a pool's socket, a lazily loaded module) captures the caller's values.
 * For work done once that outlives the request that happens to trigger it: warming a connection pool at boot,
 * creating a client or a schedule lazily (sequelize/sequelize#10462, openclaw/openclaw#126640).
 */
export function runInRoot<R, A extends unknown[]>(fn: (...args: A) => R, ...args: A): R {
  if (typeof fn !== 'function') throw notAFunction('runInRoot(fn)', fn);
  return runWithFrame(rootFrame, fn, ...args);
}

/**
 * How context propagates in this process: Node's async_hooks-based AsyncLocalStorage (Node 20 and 22, or 24+
 * with --no-async-context-frame), AsyncContextFrame (Node 24+), or a native or polyfilled AsyncContext. The
 * async_hooks implementation stores the current values on every async resource created, promises included,
 * so an object created once inside a request keeps that request's values for as long as it lives.
 */
export function asyncContextImplementation(): Implementation {
  return implementation;
}

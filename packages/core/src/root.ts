import { rootFrame } from './captured-context.js';
import { notAFunction } from './errors.js';
import { implementation, runWithFrame, type Implementation } from './registry.js';

/**
 * Calls `fn(...args)` outside every scope: nothing of the caller is visible inside, and nothing created inside (a
 * timer, a promise, a pool's socket, a lazily loaded module) captures the caller's values. For work done once
 * that outlives the request that happens to trigger it (sequelize/sequelize#10462).
 */
export function runInRoot<R, A extends unknown[]>(fn: (...args: A) => R, ...args: A): R {
  if (typeof fn !== 'function') throw notAFunction('runInRoot(fn)', fn);
  return runWithFrame(rootFrame, fn, ...args);
}

/**
 * How context propagates in this process. The async_hooks implementation stores the current values on every
 * async resource created, promises included, so an object created once inside a request keeps that request's
 * values for as long as it lives.
 */
export function asyncContextImplementation(): Implementation {
  return implementation;
}

import { rootFrame } from './captured-context.js';
import { notAFunction } from './errors.js';
import { implementation, runWithFrame, type Implementation } from './registry.js';

/**
 * Calls `fn(...args)` outside every scope, so that nothing created inside (a timer, a pool's socket) keeps the
 * caller's values: for work that outlives the request that triggers it (sequelize/sequelize#10462).
 */
export function runInRoot<R, A extends unknown[]>(fn: (...args: A) => R, ...args: A): R {
  if (typeof fn !== 'function') throw notAFunction('runInRoot(fn)', fn);
  return runWithFrame(rootFrame, fn, undefined, args);
}

/** How context propagates here: under async_hooks every resource, promises too, keeps its creator's values. */
export function asyncContextImplementation(): Implementation {
  return implementation;
}

import type { AmbientError } from './ambient-error.js';
import { errors } from './errors.js';

/**
 * The error for a callback that is not a function. Callers test `typeof fn !== 'function'` inline and build
 * the message only on failure: run() is a hot path, and even a closure per call shows up in its cost.
 */
export function notAFunction(where: string, value: unknown): AmbientError {
  return errors.invalidArgument(where, 'a function', value);
}

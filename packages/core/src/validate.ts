import { errors, type AmbientError } from './errors.js';

/**
 * The error for a callback that is not a function. Callers test `typeof fn !== 'function'` inline and build
 * the message only on failure: run() is a hot path, and even a closure per call shows up in its cost.
 */
export function notAFunction(where: string, value: unknown): AmbientError {
  return errors.invalidArgument(where, 'a function', value);
}

/** Reads `{ name?: string }`-style options eagerly, so a typo fails at construction, not on first use. */
export function readOptions<O extends object>(options: unknown, where: string): Partial<O> {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw errors.invalidArgument(where, 'an options object or undefined', options);
  }
  const name = (options as { name?: unknown }).name;
  if (name !== undefined && typeof name !== 'string') {
    throw errors.invalidArgument(`${where}: options.name`, 'a string', name);
  }
  return options;
}

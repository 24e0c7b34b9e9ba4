import { contextCarrier, type ContextCarrier } from '@ambient/correlation';
import { errors } from './errors.js';

/** The property a task carries its sender's scope under: a string, since a symbol does not cross a thread. */
export const contextKey = '@ambient/context';

/** A task made by contextTask(), with the sender's scope (contextCarrier()): the thread's handler gets `task`. */
export interface ContextTask<T> {
  readonly task: T;
  readonly [contextKey]: ContextCarrier;
}

/** The last parameter contextParams() adds to a workerpool call; contextMethods() takes it off again. */
export interface ContextParameter {
  readonly [contextKey]: ContextCarrier;
}

/**
 * `task` with the current scope, for any host that clones a message into a thread: piscina's and tinypool's
 * `run(task)`, a Worker's `postMessage(message)`. In the thread, taskHandler() or messageListener() runs the
 * handler with `task` as the request that sent it caused it. Outside any scope the task carries no ids, and
 * runs as a new chain.
 *
 *     const html = await pool.run(contextTask({ template, data }));
 */
export function contextTask<T>(task: T): ContextTask<T> {
  return { task, [contextKey]: contextCarrier() };
}

/**
 * workerpool's `exec(method, params)` parameters with the current scope as one more, last parameter, which
 * contextMethods() in the worker takes off before the method sees them.
 *
 *     const total = await pool.exec('sum', contextParams([1, 2]));
 */
export function contextParams<P extends readonly unknown[]>(params: P): [...P, ContextParameter] {
  if (!Array.isArray(params)) throw errors.invalidArgument('contextParams(params)', 'an array of parameters', params);
  const parameter: ContextParameter = { [contextKey]: contextCarrier() };
  return [...params, parameter] as [...P, ContextParameter];
}

/**
 * The carrier `value` has under contextKey, if it is an object made by contextTask or contextParams (or its
 * structured clone); anything else, a getter that throws included, has none. The carrier is read by the run
 * as any message's is (readCarrier).
 */
export function carriedContext(value: unknown): { carrier: unknown } | undefined {
  try {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, contextKey)) return undefined;
    return { carrier: (value as Record<string, unknown>)[contextKey] };
  } catch {
    return undefined;
  }
}

import { contextCarrier, uuidv7, type ContextCarrier } from '@ambient/correlation';
import { errors } from './errors.js';

/** The property a task carries its sender's scope under: a string, since a symbol does not cross a thread. */
export const contextKey = '@ambient/context';

/** What crosses to the thread beside the task: the task's own id and the sender's scope (contextCarrier()). */
export interface TaskContext {
  readonly id: string;
  readonly carrier: ContextCarrier;
}

/** A task made by contextTask(): the thread's handler (taskHandler, messageListener) gets `task` alone. */
export interface ContextTask<T> {
  readonly task: T;
  readonly [contextKey]: TaskContext;
}

/** The last parameter contextParams() adds to a workerpool call; contextMethods() takes it off again. */
export interface ContextParameter {
  readonly [contextKey]: TaskContext;
}

/**
 * `task` with the current scope, for any host that clones a message into a thread: piscina's and tinypool's
 * `run(task)`, a Worker's `postMessage(message)`. In the thread, taskHandler() or messageListener() runs the
 * handler with `task` as the request that sent it caused it. Each call gives the task a new id (a UUIDv7),
 * logged on the thread's lines as `job.id`; outside any scope the task carries no ids, and runs as a new chain.
 *
 *     const html = await pool.run(contextTask({ template, data }));
 */
export function contextTask<T>(task: T): ContextTask<T> {
  return { task, [contextKey]: taskContext() };
}

/**
 * workerpool's `exec(method, params)` parameters with the current scope as one more, last parameter, which
 * contextMethods() in the worker takes off before the method sees them.
 *
 *     const total = await pool.exec('sum', contextParams([1, 2]));
 */
export function contextParams<P extends readonly unknown[]>(params: P): [...P, ContextParameter] {
  if (!Array.isArray(params)) throw errors.invalidArgument('contextParams(params)', 'an array of parameters', params);
  const parameter: ContextParameter = { [contextKey]: taskContext() };
  return [...params, parameter] as [...P, ContextParameter];
}

function taskContext(): TaskContext {
  return { id: uuidv7(), carrier: contextCarrier() };
}

/**
 * The context `value` carries under contextKey, if it is an object made by contextTask or contextParams (or
 * its structured clone); anything else, a getter that throws included, carries none. Its fields are only
 * shaped here: the run checks them as it checks any message's (runJob).
 */
export function carriedContext(value: unknown): { id: unknown; carrier: unknown } | undefined {
  try {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, contextKey)) return undefined;
    const context: unknown = (value as Record<string, unknown>)[contextKey];
    if (typeof context !== 'object' || context === null) return undefined;
    const { id, carrier } = context as Record<string, unknown>;
    return { id, carrier };
  } catch {
    return undefined;
  }
}

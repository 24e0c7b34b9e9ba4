import { readOptions, type OptionShape } from '@ambient/core/internal';
import type { JobRun } from '@ambient/correlation';
import { messageRunOptionShape, runMessage } from '@ambient/correlation/internal';
import { carriedContext, type ContextTask } from './context-task.js';
import { errors } from './errors.js';

/** How a task's run is named and made in the thread. */
export interface TaskRunOptions {
  /** The run's `job.name`; default: `task` (workerpool: the method's name). */
  name?: string;
  /**
   * Do not continue the sender's trace: the run gets none of its trace ids, only its causation and correlation
   * ids (a task that outlives the request, or fans out).
   */
  link?: boolean;
  /** Makes each run's request id; default: a time-ordered UUIDv7. */
  generateRequestId?: () => string;
}

/** The options of a method's run: its name is the method's. */
export type MethodRunOptions = Omit<TaskRunOptions, 'name'>;

const methodOptionShape: OptionShape<MethodRunOptions> = {
  link: messageRunOptionShape.link,
  generateRequestId: messageRunOptionShape.generateRequestId,
};
const optionShape: OptionShape<TaskRunOptions> = { ...methodOptionShape, name: messageRunOptionShape.name };

/**
 * A piscina or tinypool task handler (the worker file's export), made to run each task in a fresh
 * requestContext scope as runJob does: a new `requestId`, the sender's request as `causationId`, its
 * correlation id and trace, and `job: { name, system: 'worker_threads' }`. It is called with the task
 * contextTask() wrapped, unwrapped again; a task sent without contextTask runs as it is, as a new chain. Results
 * and errors are returned and thrown as they are: a failure logged in the thread, in the handler or in
 * `process.on('uncaughtException')`, carries the task's ids.
 *
 *     export default taskHandler(async ({ template, data }) => render(template, data));
 */
export function taskHandler<T, A extends unknown[], R>(
  handler: (task: T, ...rest: A) => R,
  options?: TaskRunOptions,
): (task: ContextTask<T> | T, ...rest: A) => R {
  const where = 'taskHandler(handler, options)';
  if (typeof handler !== 'function') throw errors.invalidArgument(where, 'a function (task) => unknown', handler);
  const given = readOptions<TaskRunOptions>(options, optionShape, { where, errors });
  return function ambientTask(this: unknown, value, ...rest) {
    return runTask(given, value, (task) => handler.call(this, task as T, ...rest));
  };
}

/**
 * A listener for a worker thread's `parentPort.on('message')` (or a MessagePort's), made to handle each message
 * that contextTask() wrapped in a fresh scope by taskHandler's rules, with the message unwrapped again.
 *
 *     parentPort.on('message', messageListener(async (task) => parentPort.postMessage(await work(task))));
 */
export function messageListener<T, R>(
  listener: (message: T) => R,
  options?: TaskRunOptions,
): (message: ContextTask<T> | T) => R {
  const where = 'messageListener(listener, options)';
  if (typeof listener !== 'function') throw errors.invalidArgument(where, 'a function (message) => unknown', listener);
  const given = readOptions<TaskRunOptions>(options, optionShape, { where, errors });
  return function ambientMessageListener(this: unknown, value) {
    return runTask(given, value, (message) => listener.call(this, message as T));
  };
}

/** A workerpool worker's methods, as `workerpool.worker(methods)` takes them. */
export type WorkerMethods = Record<string, (...params: never[]) => unknown>;

/**
 * workerpool's worker methods, each made to run a call that contextParams() gave the sender's scope in a fresh
 * scope by taskHandler's rules, named after the method, with `job.system: 'workerpool'`; the parameter
 * contextParams added is taken off first. A call without it (`pool.proxy()`, a plain `exec`) runs as a new chain.
 *
 *     workerpool.worker(contextMethods({ sum: (a, b) => a + b }));
 */
export function contextMethods<M extends WorkerMethods>(methods: M, options?: MethodRunOptions): M {
  const where = 'contextMethods(methods, options)';
  if (typeof methods !== 'object' || methods === null) {
    throw errors.invalidArgument(where, 'an object of worker methods', methods);
  }
  const given = readOptions<MethodRunOptions>(options, methodOptionShape, { where, errors });
  const wrapped: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(methods)) {
    if (typeof method !== 'function') throw errors.invalidOption(where, name, 'a function', method);
    wrapped[name] = function ambientMethod(this: unknown, ...params: unknown[]) {
      const context = params.length > 0 ? carriedContext(params.at(-1)) : undefined;
      if (context !== undefined) params.pop();
      const run = taskRun('workerpool', name, given, context?.carrier);
      return runMessage(run, () => (method as (...args: unknown[]) => unknown).apply(this, params));
    };
  }
  return wrapped as M;
}

/** Runs `fn` with the task `value` carries (or `value` itself) in the task's run. */
function runTask<R>(options: TaskRunOptions, value: unknown, fn: (task: unknown) => R): R {
  const context = carriedContext(value);
  const task = context === undefined ? value : (value as ContextTask<unknown>).task;
  return runMessage(taskRun('worker_threads', options.name ?? 'task', options, context?.carrier), () => fn(task));
}

/** A task's run: a name the options or the method gave, checked when the handler was wrapped. */
function taskRun(system: string, name: string, options: MethodRunOptions, carrier: unknown): JobRun {
  const run: JobRun = { name, system, carrier };
  if (options.link !== undefined) run.link = options.link;
  if (options.generateRequestId !== undefined) run.generateRequestId = options.generateRequestId;
  return run;
}

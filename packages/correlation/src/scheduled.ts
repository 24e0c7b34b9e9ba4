import { executionAsyncResource } from 'node:async_hooks';
import { captureContext, enterCapturedContext, functionShapedLike } from '@ambient/core/internal';
import { errors } from './errors.js';
import { runJob } from './run-job.js';

/**
 * `fn`, made to run each call as one run of a schedule (runJob with `system: 'schedule'`): a new request id per
 * tick, whatever context created the schedule or calls it. For croner, node-cron, cron and setInterval
 * callbacks; `this`, the arguments, the return value and `length` pass through. The scheduler's own timers
 * still capture the context they are armed in (openclaw/openclaw#126640): see the README's "Schedules".
 */
export function scheduled<F extends (...args: never[]) => unknown>(name: string, fn: F): F {
  if (typeof name !== 'string' || name === '') throw errors.invalidArgument('scheduled(name, fn)', 'a name', name);
  if (typeof fn !== 'function') throw errors.invalidArgument('scheduled(name, fn)', 'a function', fn);
  // Weakly: holding the creating context here would keep alive the very request this is about.
  const current = captureContext();
  const createdIn = current === undefined ? undefined : new WeakRef(current);
  const job = { name, system: 'schedule' };
  return functionShapedLike(fn, (thisArg, args) => {
    const caller = captureContext();
    try {
      return runJob(job, (): unknown => Reflect.apply(fn, thisArg, args));
    } finally {
      // A tick called from a timer in the very context the schedule was created in (croner arms its next timer
      // from there): the rest of that timer's callback goes on outside any scope, so the next timer holds none.
      if (caller !== undefined && caller === createdIn?.deref() && calledFromATimer()) enterCapturedContext(undefined);
    }
  }) as unknown as F;
}

/** Is the current synchronous execution a timer's callback? Node's class for them is not exported. */
function calledFromATimer(): boolean {
  const resource = executionAsyncResource() as { constructor?: { name?: string } } | undefined;
  return resource?.constructor?.name === 'Timeout';
}

import { executionAsyncResource } from 'node:async_hooks';
import { lengthOf } from './copy-name-and-length.js';
import { errors } from './errors.js';
import { forwardingFunction } from './forwarding-function.js';
import { runJob } from './run-job.js';
import { implementation, storage } from './storage.js';
import { notAFunction } from './validate.js';

/**
 * `fn`, made to run each call as one run of a schedule: in a fresh requestContext scope opened from the root
 * (runJob with `system: 'schedule'`), with a new request id, whatever context created the schedule or calls it.
 * For croner, node-cron, cron and setInterval callbacks. `this`, the arguments, the return value and `length`
 * pass through.
 *
 * A scheduler's timers capture the context they are armed in: a schedule created inside a request keeps that
 * request's values alive in its timers (openclaw/openclaw#126640), and without this every tick would also run
 * as that request. The tick runs in a scope of its own whatever the scheduler does. The timers themselves are
 * the scheduler's: croner arms the next one right after calling the tick, inside the tick's timer, so when a
 * tick is called from a timer in the very context the schedule was created in, the rest of that timer's
 * callback continues outside any scope and the next timer no longer holds the request. Schedulers that arm
 * their timers apart from the tick (node-cron, cron) and setInterval under AsyncContextFrame keep it until
 * they are stopped: create those schedules in runInRoot() (README, "Schedules").
 */
export function scheduled<F extends (...args: never[]) => unknown>(name: string, fn: F): F {
  if (typeof name !== 'string' || name === '') throw errors.invalidArgument('scheduled(name, fn)', 'a name', name);
  if (typeof fn !== 'function') throw notAFunction('scheduled(name, fn)', fn);
  // Weakly: holding the creating context here would keep the very request alive that this is about.
  const current = storage.getStore();
  const createdIn = current === undefined ? undefined : new WeakRef(current);
  const job = { name, system: 'schedule' };
  return forwardingFunction(lengthOf(fn), (thisArg, args) => {
    const caller = storage.getStore();
    try {
      return runJob(job, (): unknown => Reflect.apply(fn, thisArg, args));
    } finally {
      if (caller !== undefined && caller === createdIn?.deref() && canLeaveScope && calledFromATimer()) {
        storage.enterWith(undefined as never);
      }
    }
  }) as unknown as F;
}

/** On the AsyncContext backend nothing can be entered in place; the timers then keep what they captured. */
const canLeaveScope = implementation !== 'AsyncContext';

/**
 * Is the current synchronous execution a timer's callback (setTimeout, setInterval)? Node's own class for
 * them is not exported; its name is stable across the Node lines this package supports.
 */
function calledFromATimer(): boolean {
  const resource = executionAsyncResource() as { constructor?: { name?: string } } | undefined;
  return resource?.constructor?.name === 'Timeout';
}

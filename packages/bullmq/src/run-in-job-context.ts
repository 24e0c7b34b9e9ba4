import { requestContext } from '@ambient/core';
import { peekContext, runReadJob, type ReadJobRun } from '@ambient/core/adapter';
import { errors } from './errors.js';
import { readMetadata } from './metadata.js';

/** The parts of a BullMQ Job (or a sandboxed processor's job object) that locate its run. */
export interface JobLike {
  readonly name: string;
  readonly id?: string | undefined;
  readonly queueName?: string;
  readonly attemptsMade?: number;
  readonly opts?: { readonly telemetry?: { readonly metadata?: string } };
}

/**
 * Runs `fn` as a run of `job`, as the Worker does under bullmqTelemetry(): for sandboxed processors, which
 * BullMQ runs in a child process or worker thread where no context crosses over (taskforcesh/bullmq#4064), and
 * for workers made without the telemetry option. The job's metadata gives causation, correlation and trace.
 * Inside a run the telemetry already opened for this very job, it opens nothing and adds what only the job
 * knows (its attempt) to the run's `job` field.
 *
 *     export default (job) => runInJobContext(job, () => sendMail(job.data));
 */
export function runInJobContext<R>(job: JobLike, fn: () => R): R {
  if (typeof job !== 'object' || job === null || typeof job.name !== 'string') {
    throw errors.invalidArgument('runInJobContext(job, fn)', 'a BullMQ job', job);
  }
  if (typeof fn !== 'function') throw errors.invalidArgument('runInJobContext(job, fn)', 'a function', fn);
  const attempt =
    typeof job.attemptsMade === 'number' && Number.isInteger(job.attemptsMade) && job.attemptsMade >= 0
      ? job.attemptsMade + 1
      : undefined;
  // Read without counting as a lost context (@ambient/diagnostics): outside a scope is this function's normal case.
  const running = peekContext(requestContext, 'job');
  if (running?.system === 'bullmq' && running.id !== undefined && running.id === job.id) {
    if (attempt !== undefined) requestContext.set('job', { ...running, attempt });
    return fn();
  }
  const run: { -readonly [K in keyof ReadJobRun]: ReadJobRun[K] } = {
    name: job.name === '' ? 'job' : job.name,
    system: 'bullmq',
  };
  if (typeof job.id === 'string') run.id = job.id;
  if (typeof job.queueName === 'string') run.queue = job.queueName;
  if (attempt !== undefined) run.attempt = attempt;
  return runReadJob(run, readMetadata(job.opts?.telemetry?.metadata).fields, fn);
}

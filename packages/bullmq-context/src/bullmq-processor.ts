import { requestContext } from '@ambient/core';
import { scopeObject } from '@ambient/core/internal';
import { runJob, type JobRun } from '@ambient/correlation';
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
 * A BullMQ processor, made to run each job as a run of it from the job's metadata, as the Worker does under
 * bullmqTelemetry(): for sandboxed processors, where no context crosses over (taskforcesh/bullmq#4064), and
 * workers made without the telemetry option. Inside the run the telemetry opened for this very job, it opens
 * nothing and adds the job's attempt to the run's `job` field.
 *
 *     export default bullmqProcessor(async (job) => sendMail(job.data));
 */
export function bullmqProcessor<J extends JobLike, A extends unknown[], R>(
  processor: (job: J, ...rest: A) => R,
): (job: J, ...rest: A) => R {
  if (typeof processor !== 'function') {
    throw errors.invalidArgument('bullmqProcessor(processor)', 'a function (job) => unknown', processor);
  }
  return function ambientProcessor(job, ...rest) {
    if (typeof job !== 'object' || job === null || typeof job.name !== 'string') {
      throw errors.invalidArgument('bullmqProcessor(processor): the processor was called with', 'a BullMQ job', job);
    }
    return inJobRun(job, () => processor(job, ...rest));
  };
}

function inJobRun<R>(job: JobLike, fn: () => R): R {
  const attempt =
    typeof job.attemptsMade === 'number' && Number.isInteger(job.attemptsMade) && job.attemptsMade >= 0
      ? job.attemptsMade + 1
      : undefined;
  // Read without counting as a lost context (@ambient/diagnostics): outside a scope is the normal case here.
  const running = scopeObject(requestContext)?.job;
  if (running?.system === 'bullmq' && running.id !== undefined && running.id === job.id) {
    if (attempt !== undefined) requestContext.set('job', { ...running, attempt });
    return fn();
  }
  const run: JobRun = {
    name: job.name === '' ? 'job' : job.name,
    system: 'bullmq',
    carrier: readMetadata(job.opts?.telemetry?.metadata).fields,
  };
  if (typeof job.id === 'string') run.id = job.id;
  if (typeof job.queueName === 'string') run.queue = job.queueName;
  if (attempt !== undefined) run.attempt = attempt;
  return runJob(run, fn);
}

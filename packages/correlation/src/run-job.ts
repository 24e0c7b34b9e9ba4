import { requestContext, type JobInfo, type RequestStore } from '@ambient/core';
import { readOptions, rule, rules, runFromRoot, type OptionShape } from '@ambient/core/internal';
import { readCarrier, type CarrierFields } from './carrier.js';
import { errors } from './errors.js';
import { isValidRequestId, uuidv7 } from './request-id.js';

/** One run of a job, message or schedule tick, as runJob takes it. */
export interface JobRun {
  /** What runs: a job name, a routing key, a schedule's name. Logged on every line inside. */
  name: string;
  /** The job's own id, where the queue gives one. Kept only when it passes the request-id rule. */
  id?: string;
  /**
   * What the producer sent along (contextCarrier() on its side), or readCarrier()'s result for it: the run's
   * causation and correlation ids and its trace come from here, each field checked. Missing or foreign: a fresh
   * chain.
   */
  carrier?: unknown;
  /**
   * Do not continue the producer's trace: the run gets none of its trace ids, so that fan-out, repeating and
   * scheduled jobs do not make one endless trace (taskforcesh/bullmq#2942); causation and correlation stay.
   */
  link?: boolean;
  /** Which system runs it (`bullmq`, `amqp`, `schedule`), the queue, and the attempt (1 for the first run). */
  system?: string;
  queue?: string;
  attempt?: number;
  /** Makes this run's request id; default: a time-ordered UUIDv7. */
  generateRequestId?: () => string;
}

const jobShape: OptionShape<JobRun> = {
  name: rules.nonEmptyString,
  id: rules.string,
  carrier: rules.any(),
  link: rules.boolean,
  system: rules.nonEmptyString,
  queue: rules.string,
  attempt: rule('a positive integer', (value): value is number => Number.isInteger(value) && (value as number) > 0),
  generateRequestId: rules.function('() => string'),
};

/**
 * Runs `fn` as one run of a job, in a fresh requestContext scope opened from the root: nothing of the code that
 * called it (the worker's startup, the previous job, a request that created a schedule) is visible inside, and
 * nothing created inside captures it. Inside, requestContext holds a new `requestId`, `causationId` (the
 * producer's request id), `correlationId` (the producer's, so a chain keeps one id), the producer's trace unless
 * `link` is set, and `job` (name, id, system, queue, attempt).
 */
export function runJob<R>(job: JobRun, fn: () => R): R {
  const where = 'runJob(job, fn)';
  if (typeof job !== 'object' || job === null) throw errors.invalidArgument(where, 'a job object { name }', job);
  const given = readOptions<JobRun>(job, jobShape, { where, errors, path: 'job' });
  if (given.name === undefined) throw errors.invalidOption(where, 'job.name', jobShape.name.expected, undefined);
  if (typeof fn !== 'function') throw errors.invalidArgument(where, 'a function', fn);
  return openRun(given, fn);
}

/**
 * runJob for a run whose fields Ambient's own code made from options it checked when the handler was wrapped
 * (the broker packages, once a message): the same scope, without checking each message's run again.
 */
export function openRun<R>(job: JobRun, fn: () => R): R {
  const fields = readCarrier(job.carrier);
  return runFromRoot(requestContext, (values) => fillJobValues(values, job, fields), fn);
}

/** The run's values, written into its new scope. */
function fillJobValues(values: Partial<RequestStore>, job: JobRun, fields: CarrierFields): void {
  const info: { -readonly [K in keyof JobInfo]: JobInfo[K] } = { name: job.name };
  if (job.id !== undefined && isValidRequestId(job.id)) info.id = job.id;
  if (job.system !== undefined) info.system = job.system;
  if (job.queue !== undefined) info.queue = job.queue;
  if (job.attempt !== undefined) info.attempt = job.attempt;
  values.requestId = newRequestId(job.generateRequestId);
  values.job = info;
  if (fields.causationId !== undefined) values.causationId = fields.causationId;
  const correlationId = fields.correlationId ?? fields.causationId;
  if (correlationId !== undefined) values.correlationId = correlationId;
  if (fields.traceParent !== undefined && job.link !== true) {
    values.traceId = fields.traceParent.traceId;
    values.spanId = fields.traceParent.parentId;
    values.traceFlags = fields.traceParent.traceFlags;
    if (fields.traceState !== undefined) values.traceState = fields.traceState;
  }
}

/** A user generator that throws or returns no usable id must not fail the job: the default id then. */
function newRequestId(generate: (() => string) | undefined): string {
  if (generate === undefined) return uuidv7();
  try {
    const id: unknown = generate();
    if (typeof id === 'string' && id !== '') return id;
  } catch {
    // fall through to the default
  }
  return uuidv7();
}

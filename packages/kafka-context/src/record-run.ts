import { readOptions, rules, type OptionShape } from '@ambient/core/internal';
import type { JobRun } from '@ambient/correlation';
import { runMessage } from '@ambient/correlation/internal';
import { errors } from './errors.js';

export interface MessageHandlerOptions {
  /** The run's `job.name`; default: the record's topic. */
  name?: string;
  /**
   * Do not continue the producer's trace (fan-out consumers): the run gets none of its trace ids, only its
   * causation and correlation ids. No span is started here, so no OpenTelemetry link is made either.
   */
  link?: boolean;
  /** Makes each run's request id; default: a time-ordered UUIDv7. */
  generateRequestId?: () => string;
}

const optionShape: OptionShape<MessageHandlerOptions> = {
  name: rules.nonEmptyString,
  link: rules.boolean,
  generateRequestId: rules.function('() => string'),
};

/** Runs `fn` for one consumed record of `topic` whose headers are `carrier`. */
export type RecordRun = <R>(topic: unknown, carrier: unknown, fn: () => R) => R;

/**
 * Checks a consumer wrapper's handler and options once, at wrapping, and returns how each record is run:
 * runMessage with `job: { name, system: 'kafka', queue: topic }`. Kafka gives a record no id (its offset is a
 * position in a partition, met again after a rebalance) and counts no deliveries, so the job has neither.
 */
export function recordRun(where: string, handler: unknown, options: MessageHandlerOptions | undefined): RecordRun {
  if (typeof handler !== 'function') throw errors.invalidArgument(where, 'a function', handler);
  const given = readOptions<MessageHandlerOptions>(options, optionShape, { where, errors });
  return (topic, carrier, fn) => {
    const queue = typeof topic === 'string' && topic !== '' ? topic : undefined;
    const run: JobRun = { name: given.name ?? queue ?? 'message', system: 'kafka', carrier };
    if (queue !== undefined) run.queue = queue;
    if (given.link !== undefined) run.link = given.link;
    if (given.generateRequestId !== undefined) run.generateRequestId = given.generateRequestId;
    return runMessage(run, fn);
  };
}

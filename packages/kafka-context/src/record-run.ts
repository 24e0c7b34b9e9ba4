import { readOptions } from '@ambient/core/internal';
import { messageRun, messageRunOptionShape, runMessage } from '@ambient/correlation/internal';
import { errors } from './errors.js';

export interface MessageHandlerOptions {
  /** The run's `job.name`; default: the record's topic. */
  name?: string;
  /** The run's `job.queue`, such as the consumer group; default: the record's topic. */
  queue?: string;
  /**
   * Do not continue the producer's trace (fan-out consumers): the run gets none of its trace ids, only its
   * causation and correlation ids. No span is started here, so no OpenTelemetry link is made either.
   */
  link?: boolean;
  /** Makes each run's request id; default: a time-ordered UUIDv7. */
  generateRequestId?: () => string;
}

/** Runs `fn` for one consumed record of `topic` whose headers are `carrier`. */
export type RecordRun = <R>(topic: unknown, carrier: unknown, fn: () => R) => R;

/**
 * Checks a consumer wrapper's handler and options once, at wrapping, and returns how each record is run:
 * runMessage with `job: { name, system: 'kafka', queue: topic }`. Kafka gives a record no id (its offset is a
 * position in a partition, met again after a rebalance) and counts no deliveries, so the job has neither.
 */
export function recordRun(where: string, handler: unknown, options: MessageHandlerOptions | undefined): RecordRun {
  if (typeof handler !== 'function') throw errors.invalidArgument(where, 'a function', handler);
  const given = readOptions<MessageHandlerOptions>(options, messageRunOptionShape, { where, errors });
  return (topic, carrier, fn) => runMessage(messageRun('kafka', given, { name: topic, queue: topic, carrier }), fn);
}

import { readOptions } from '@ambient/core/internal';
import { messageRun, messageRunOptionShape, runMessage } from '@ambient/correlation/internal';
import { errors } from './errors.js';

/** The parts of an amqplib ConsumeMessage this package reads. */
export interface ConsumeMessageLike {
  readonly fields: { readonly routingKey?: string; readonly redelivered?: boolean; readonly exchange?: string };
  readonly properties: { readonly headers?: Record<string, unknown> | undefined; readonly messageId?: unknown };
}

export interface ConsumeHandlerOptions {
  /** The queue consumed from, for the run's `job.queue`. */
  queue?: string;
  /** The run's `job.name`; default: the message's routing key, else the queue. */
  name?: string;
  /**
   * Do not continue the publisher's trace (fan-out consumers): the run gets none of its trace ids, only its
   * causation and correlation ids. consumeHandler starts no span, so no OpenTelemetry link is made either.
   */
  link?: boolean;
  /** Makes each run's request id; default: a time-ordered UUIDv7. */
  generateRequestId?: () => string;
}

/**
 * `handler`, made to handle each message in a fresh requestContext scope (runJob) with
 * `job: { name, id (messageId), system: 'amqp', queue, attempt }`: its awaits, `ack`/`nack` and errors run there.
 * A span of the message's trace that an instrumentation made active around the callback stays active in the run.
 * Headers that are missing or fail their checks give a fresh chain. `null` (the broker cancelled the consumer)
 * reaches the handler as it is, outside any scope.
 *
 *     await channel.consume('mail', consumeHandler(async (msg) => { …; channel.ack(msg!); }, { queue: 'mail' }));
 */
export function consumeHandler<M extends ConsumeMessageLike, R>(
  handler: (message: M | null) => R,
  options?: ConsumeHandlerOptions,
): (message: M | null) => R {
  const where = 'consumeHandler(handler, options)';
  if (typeof handler !== 'function') throw errors.invalidArgument(where, 'a function (message) => unknown', handler);
  const given = readOptions<ConsumeHandlerOptions>(options, messageRunOptionShape, { where, errors });
  return (message) => {
    if (message === null || typeof message !== 'object') return handler(message);
    const { fields, properties } = message;
    const messageId = properties?.messageId;
    const run = messageRun('amqp', given, {
      // The routing key, else the queue consumed from.
      name: fields?.routingKey || given.queue,
      id: typeof messageId === 'string' ? messageId : undefined,
      attempt: attemptOf(properties?.headers, fields?.redelivered),
      carrier: properties?.headers,
    });
    return runMessage(run, () => handler(message));
  };
}

/**
 * RabbitMQ counts deliveries of quorum-queue messages in `x-delivery-count` (0 on the first); classic queues say
 * only whether a message was delivered before. The attempt is given where it is known.
 */
function attemptOf(headers: Record<string, unknown> | undefined, redelivered: boolean | undefined): number | undefined {
  const count = headers?.['x-delivery-count'];
  if (typeof count === 'number' && Number.isInteger(count) && count >= 0) return count + 1;
  return redelivered === false ? 1 : undefined;
}

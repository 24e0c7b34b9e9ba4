import { readOptions } from '@ambient/core/internal';
import { messageRun, messageRunOptionShape, runMessage } from '@ambient/correlation/internal';
import { errors } from './errors.js';
import type { MessageAttributeValueLike } from './message-attributes.js';
import { readMessage } from './read-message.js';

/** The parts of an SQS `Message` (`@aws-sdk/client-sqs`, and sqs-consumer's handler argument) read here. */
export interface MessageLike {
  readonly MessageId?: string | undefined;
  readonly Attributes?: Partial<Record<string, string>> | undefined;
  readonly MessageAttributes?: Readonly<Record<string, MessageAttributeValueLike>> | undefined;
}

export interface MessageHandlerOptions {
  /** The queue received from, for the run's `job.queue`. */
  queue?: string;
  /** The run's `job.name`; default: the queue, else `message`. */
  name?: string;
  /**
   * Do not continue the sender's trace (fan-out consumers): the run gets none of its trace ids, only its
   * causation and correlation ids. messageHandler starts no span, so no OpenTelemetry link is made either.
   */
  link?: boolean;
  /** Makes each run's request id; default: a time-ordered UUIDv7. */
  generateRequestId?: () => string;
}

/**
 * `handler`, made to handle each message in a fresh requestContext scope (runJob) with `job: { name, id
 * (MessageId), system: 'sqs', queue, attempt (ApproximateReceiveCount) }`: its awaits and errors run there.
 * Its result and errors are returned and thrown unchanged, as sqs-consumer needs them: the message returned is
 * deleted, a throw leaves it for redelivery. Message attributes that are missing or fail their checks give a
 * fresh chain. For sqs-consumer's `handleMessage`, a loop over ReceiveMessage's `Messages`, or each message of a
 * `handleMessageBatch`.
 *
 *     Consumer.create({ queueUrl, messageAttributeNames: messageAttributeNames(),
 *       handleMessage: messageHandler(async (message) => { …; return message; }, { queue: 'mail' }) });
 */
export function messageHandler<M extends MessageLike, R>(
  handler: (message: M) => R,
  options?: MessageHandlerOptions,
): (message: M) => R {
  const where = 'messageHandler(handler, options)';
  if (typeof handler !== 'function') throw errors.invalidArgument(where, 'a function (message) => unknown', handler);
  const given = readOptions<MessageHandlerOptions>(options, messageRunOptionShape, { where, errors });
  return (message) => {
    // Not a message at all: the handler's own business, outside any scope.
    if (typeof message !== 'object' || message === null) return handler(message);
    const { carrier, id, attempt } = readMessage(message);
    // The queue names the run: an SQS message names neither its queue nor anything like a subject.
    const run = messageRun('sqs', given, { name: given.queue, id, attempt, carrier });
    return runMessage(run, () => handler(message));
  };
}

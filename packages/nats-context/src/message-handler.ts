import { readOptions } from '@ambient/core/internal';
import type { JobRun } from '@ambient/correlation';
import { messageRun, messageRunOptionShape, runMessage } from '@ambient/correlation/internal';
import { errors } from './errors.js';
import { readHeaders } from './read-headers.js';

/**
 * The parts of a NATS message this package reads: a core `Msg` (`subject`, `headers`) or a JetStream `JsMsg`,
 * whose `info` names its stream and counts its deliveries.
 */
export interface NatsMessageLike {
  readonly subject: string;
  readonly headers?: Iterable<[string, string[]]> | undefined;
  readonly info?: { readonly stream?: string; readonly deliveryCount?: number };
}

export interface MessageHandlerOptions {
  /** The run's `job.name`; default: the message's subject. */
  name?: string;
  /** The run's `job.queue`; default: a JetStream message's stream. A queue group's name is a fair choice. */
  queue?: string;
  /**
   * Do not continue the publisher's trace (fan-out consumers): the run gets none of its trace ids, only its
   * causation and correlation ids.
   */
  link?: boolean;
  /** Makes each run's request id; default: a time-ordered UUIDv7. */
  generateRequestId?: () => string;
}

/**
 * `handler`, made to handle each message in a fresh requestContext scope (runJob) with
 * `job: { name (the subject), id (Nats-Msg-Id), system: 'nats', queue (the stream), attempt }`: its awaits,
 * `respond`, `ack`/`nak` and errors run there, so a reply carries the run's ids when it is published with
 * messageHeaders(). For JetStream's `consume({ callback })` and for loops over a subscription or a consumer's
 * messages. A JetStream redelivery is a new run of the same causation and correlation, `attempt` its delivery
 * count. Headers that are missing or fail their checks give a fresh chain.
 *
 *     for await (const msg of await consumer.consume()) await handle(msg);
 */
export function messageHandler<M extends NatsMessageLike, R>(
  handler: (message: M) => R,
  options?: MessageHandlerOptions,
): (message: M) => R {
  const where = 'messageHandler(handler, options)';
  if (typeof handler !== 'function') throw errors.invalidArgument(where, 'a function (message) => unknown', handler);
  const given = readOptions<MessageHandlerOptions>(options, messageRunOptionShape, { where, errors });
  return (message) => {
    // Not a message at all: the handler's own business, outside any scope.
    if (typeof message !== 'object' || message === null) return handler(message);
    // The client hands messages over from its socket's data events, in the context the connection was opened in
    // (a request that connected lazily would lend every message its ids) or, in a loop, the previous message's
    // run: each run opens from the root (https://nodejs.org/api/async_context.html#troubleshooting-context-loss).
    return runMessage(jobOf(message, given), () => handler(message));
  };
}

/**
 * `handler` for a core subscription's `callback` (`nc.subscribe(subject, { callback })`), each message handled
 * as messageHandler() does. An error the client reports (a permissions violation, the subscription closed)
 * reaches the handler as it is, outside any scope.
 *
 *     nc.subscribe('orders.*', { callback: subscriptionCallback((err, msg) => { … }) });
 */
export function subscriptionCallback<E, M extends NatsMessageLike, R>(
  handler: (error: E | null, message: M) => R,
  options?: MessageHandlerOptions,
): (error: E | null, message: M) => R {
  const where = 'subscriptionCallback(handler, options)';
  if (typeof handler !== 'function') {
    throw errors.invalidArgument(where, 'a function (error, message) => unknown', handler);
  }
  const given = readOptions<MessageHandlerOptions>(options, messageRunOptionShape, { where, errors });
  return (error, message) => {
    if (error !== null || typeof message !== 'object' || message === null) return handler(error, message);
    return runMessage(jobOf(message, given), () => handler(null, message));
  };
}

/** The run a message is handled in. */
function jobOf(message: NatsMessageLike, given: MessageHandlerOptions): JobRun {
  const { carrier, messageId } = readHeaders(message.headers);
  const info = jetStreamInfo(message);
  const attempt = info?.deliveryCount;
  return messageRun('nats', given, {
    name: message.subject,
    queue: info?.stream,
    id: messageId,
    attempt: typeof attempt === 'number' && Number.isInteger(attempt) && attempt > 0 ? attempt : undefined,
    carrier,
  });
}

/**
 * A JetStream message's delivery info. A core message has none; JetStream parses it from the reply subject,
 * and a message whose reply subject is not JetStream's throws rather than give none: then the run has no queue
 * or attempt, never a failure.
 */
function jetStreamInfo(message: NatsMessageLike): NatsMessageLike['info'] {
  try {
    return typeof message.info === 'object' && message.info !== null ? message.info : undefined;
  } catch {
    return undefined;
  }
}

import { readOptions } from '@ambient/core/internal';
import { messageRun, messageRunOptionShape, runMessage } from '@ambient/correlation/internal';
import { errors, warnings } from './errors.js';

/** The parts of an mqtt.js publish packet (`IPublishPacket`) this package reads. */
export interface PublishPacketLike {
  readonly properties?: { readonly userProperties?: unknown } | undefined;
}

export interface MessageListenerOptions {
  /** The run's `job.name`; default: the message's topic. */
  name?: string;
  /** The run's `job.queue`, such as a shared subscription's group; default: none. */
  queue?: string;
  /**
   * Do not continue the publisher's trace (fan-out): the run gets none of its trace ids, only its causation and
   * correlation ids. messageListener starts no span, so no OpenTelemetry link is made either.
   */
  link?: boolean;
  /** Makes each run's request id; default: a time-ordered UUIDv7. */
  generateRequestId?: () => string;
}

/** What mqtt.js's client is to the listeners it calls (`this`): only its protocol version is read. */
interface ClientLike {
  readonly options?: { readonly protocolVersion?: unknown } | undefined;
}

/**
 * `handler`, made to handle each message in a fresh requestContext scope (runJob) with
 * `job: { name, system: 'mqtt' }`, read from the message's MQTT 5 user properties: its awaits, its publishes and
 * its errors run there. Properties that are missing, fail their checks, or were sent more than once (an array:
 * which one is meant cannot be known) give a fresh chain. MQTT has no message id (a packet identifier is a
 * slot of one connection, used again) and no delivery count (`dup` says only that this connection may have had
 * the packet before), so the job has neither `id` nor `attempt`. Its result and errors are returned and thrown
 * as they are; `this` (the client) is passed on.
 *
 *     client.on('message', messageListener(async (topic, payload, packet) => { … }));
 */
export function messageListener<This, B, P extends PublishPacketLike, R>(
  handler: (this: This, topic: string, payload: B, packet: P) => R,
  options?: MessageListenerOptions,
): (this: This, topic: string, payload: B, packet: P) => R {
  const where = 'messageListener(handler, options)';
  if (typeof handler !== 'function') {
    throw errors.invalidArgument(where, 'a function (topic, payload, packet) => unknown', handler);
  }
  const given = readOptions<MessageListenerOptions>(options, messageRunOptionShape, { where, errors });
  return function listener(this: This, topic: string, payload: B, packet: P): R {
    warnUnlessV5(this);
    // mqtt.js emits from its socket's data events, in the context the connection was opened in, or from inside the
    // previous run when a handler released its held handleMessage callback: each run opens from the root
    // (https://nodejs.org/api/async_context.html#troubleshooting-context-loss).
    const run = messageRun('mqtt', given, { name: topic, carrier: userPropertiesOf(packet) });
    return runMessage(run, () => handler.call(this, topic, payload, packet));
  };
}

/**
 * An EventEmitter calls its listeners with itself as `this`: an mqtt.js client connected with MQTT 3.1.1 (or
 * 3.1) gets no user properties from the broker, so every message would start a fresh chain without a word.
 */
function warnUnlessV5(client: unknown): void {
  if (typeof client !== 'object' || client === null) return;
  const version = (client as ClientLike).options?.protocolVersion;
  if (typeof version === 'number' && version !== 5) warnings.notV5(version);
}

/** The packet's user properties; anything else than mqtt.js's packet (a listener called by hand) gives none. */
function userPropertiesOf(packet: unknown): unknown {
  try {
    return (packet as PublishPacketLike | null | undefined)?.properties?.userProperties;
  } catch {
    return undefined;
  }
}

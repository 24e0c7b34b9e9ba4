import { carrierKeys } from '@ambient/correlation';
import { textOf } from '@ambient/correlation/internal';
import { recordRun, type MessageHandlerOptions } from './record-run.js';

/** The parts of a @platformatic/kafka consumed `Message` this package reads. */
export interface StreamMessageLike {
  readonly topic: string;
  /** Buffer keys and values with the default deserializers, strings with `stringDeserializers`. */
  readonly headers: ReadonlyMap<unknown, unknown>;
}

const carrierNames: ReadonlySet<string> = new Set(Object.values(carrierKeys));
const longestName = Math.max(...[...carrierNames].map((name) => name.length));

/**
 * `handler`, made to handle each message of a @platformatic/kafka consumer stream in a fresh requestContext scope
 * (runJob) with `job: { name, system: 'kafka', queue: topic }`, as eachMessage() does for kafkajs: its awaits and
 * errors run there, its result is returned as it is. Headers that are missing or fail their checks give a fresh
 * chain.
 *
 *     const handle = messageHandler(async (message) => { …; await message.commit(); });
 *     for await (const message of stream) await handle(message);
 */
export function messageHandler<M extends StreamMessageLike, R>(
  handler: (message: M) => R,
  options?: MessageHandlerOptions,
): (message: M) => R {
  const run = recordRun('messageHandler(handler, options)', handler, options);
  return (message) => {
    const { topic, headers } = delivered(message);
    return run(topic, headers, () => handler(message));
  };
}

/**
 * The topic of a message, and its carrier headers as an object for readCarrier: keys may be Buffers or strings. A
 * name sent twice (a Map keeps Buffer keys apart by identity) is ambiguous, so neither value counts; a message
 * that is no object, or a getter or iterator that throws, gives nothing.
 */
function delivered(message: StreamMessageLike): { topic?: unknown; headers?: Record<string, unknown> } {
  try {
    const { topic, headers } = message;
    if (!(headers instanceof Map)) return { topic };
    const carrier: Record<string, unknown> = {};
    for (const [key, value] of headers as Map<unknown, unknown>) {
      const name = nameOf(key);
      if (name === undefined || !carrierNames.has(name)) continue;
      carrier[name] = Object.hasOwn(carrier, name) ? undefined : value;
    }
    return { topic, headers: carrier };
  } catch {
    return {};
  }
}

function nameOf(key: unknown): string | undefined {
  // A key longer than every carrier key is none of ours, and not worth decoding.
  return key instanceof Uint8Array && key.byteLength > longestName ? undefined : textOf(key);
}

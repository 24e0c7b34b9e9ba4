import { recordRun, type MessageHandlerOptions } from './record-run.js';

/**
 * The parts of a kafkajs (or @confluentinc/kafka-javascript KafkaJS API) `eachMessage` payload this package reads.
 * `{ topic, partition, message }` of a batch's message is one too.
 */
export interface EachMessagePayloadLike {
  readonly topic: string;
  /** kafkajs: header values are Buffers (arrays for a repeated key); confluent: `undefined` when there are none. */
  readonly message: { readonly headers?: unknown };
}

/**
 * `handler`, made to handle each record in a fresh requestContext scope (runJob) with
 * `job: { name, system: 'kafka', queue: topic }`: its awaits and errors run there, its result (a promise) is
 * returned as it is. A span of the record's trace that @opentelemetry/instrumentation-kafkajs made active around
 * the callback stays active in the run. Headers that are missing or fail their checks give a fresh chain.
 *
 *     await consumer.run({ eachMessage: eachMessage(async ({ topic, message }) => { … }) });
 *
 * In `eachBatch`, call it per message: `await handle({ topic: batch.topic, partition: batch.partition, message })`.
 */
export function eachMessage<P extends EachMessagePayloadLike, R>(
  handler: (payload: P) => R,
  options?: MessageHandlerOptions,
): (payload: P) => R {
  const run = recordRun('eachMessage(handler, options)', handler, options);
  return (payload) => {
    const { topic, headers } = delivered(payload);
    return run(topic, headers, () => handler(payload));
  };
}

/** The topic and headers of a payload; a payload that is no object, or a getter that throws, gives neither. */
function delivered(payload: EachMessagePayloadLike): { topic?: unknown; headers?: unknown } {
  try {
    return { topic: payload.topic, headers: payload.message?.headers };
  } catch {
    return {};
  }
}

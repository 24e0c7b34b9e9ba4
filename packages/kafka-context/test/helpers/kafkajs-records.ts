// kafkajs's own record codec (test/smoke/fixtures/kafkajs-records.cjs, which plain node loads too), typed for the
// jest tests: a produced message's headers are encoded as kafkajs's Produce request (v3+) encodes them, and
// decoded as its Fetch response decodes them, then wrapped in the consumer's own Batch, so each message is what
// `eachMessage` and `eachBatch` receive. The broker keeps a record batch's bytes as they are, so this is the round
// trip a record makes, without one.
import type { KafkaMessage, Message } from 'kafkajs';

interface Batch {
  topic: string;
  partition: number;
  messages: KafkaMessage[];
}

/* eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS fixture shared with plain node */
const codec = require('../smoke/fixtures/kafkajs-records.cjs') as {
  encode(messages: Message[]): Promise<Buffer>;
  decode(topic: string, partition: number, bytes: Buffer): Promise<Batch>;
  payloadOf(
    batch: { topic: string; partition: number },
    message: KafkaMessage,
  ): { topic: string; partition: number; message: KafkaMessage; heartbeat(): Promise<void>; pause(): () => void };
};

/** The batch a consumer of `topic` gets for `messages` sent to partition 0, as kafkajs builds it. */
export async function delivered(topic: string, messages: Message[]): Promise<Batch> {
  return codec.decode(topic, 0, await codec.encode(messages));
}

/** An `eachMessage` payload, as kafkajs's Runner (src/consumer/runner.js) passes it. */
export const payloadOf = codec.payloadOf;

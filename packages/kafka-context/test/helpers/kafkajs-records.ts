// kafkajs's own record codec, which its package does not export: a produced message's headers are encoded as
// kafkajs's Produce request (v3+) encodes them, and decoded as its Fetch response decodes them, then wrapped in
// the consumer's own Batch, so each message is what `eachMessage` and `eachBatch` receive. The broker keeps a
// record batch's bytes as they are, so this is the round trip a record makes, without one.
import type { KafkaMessage, Message } from 'kafkajs';

/* eslint-disable @typescript-eslint/no-require-imports -- kafkajs's protocol modules, not part of its typed API */
const Record = require('kafkajs/src/protocol/recordBatch/record/v0') as (record: object) => unknown;
const { RecordBatch } = require('kafkajs/src/protocol/recordBatch/v0') as {
  RecordBatch: (batch: object) => Promise<{ buffer: Buffer }>;
};
const decodeRecordBatch = require('kafkajs/src/protocol/recordBatch/v0/decoder') as (
  decoder: unknown,
) => Promise<{ records: KafkaMessage[] }>;
const Decoder = require('kafkajs/src/protocol/decoder') as new (buffer: Buffer) => unknown;
const Batch = require('kafkajs/src/consumer/batch') as new (
  topic: string,
  fetchedOffset: string,
  partitionData: object,
) => { topic: string; partition: number; messages: KafkaMessage[] };
/* eslint-enable @typescript-eslint/no-require-imports */

/** The batch a consumer of `topic` gets for `messages` sent to partition 0, as kafkajs builds it. */
export async function delivered(topic: string, messages: Message[]) {
  const now = Date.now();
  // As kafkajs/src/protocol/requests/produce/v3/request.js builds a partition's records.
  const records = messages.map((message, i) => Record({ ...message, offsetDelta: i, timestampDelta: 0 }));
  const encoded = await RecordBatch({
    records,
    firstTimestamp: now,
    maxTimestamp: now,
    lastOffsetDelta: records.length - 1,
  });
  const { records: decoded } = await decodeRecordBatch(new Decoder(encoded.buffer));
  return new Batch(topic, '0', { partition: 0, highWatermark: String(decoded.length), messages: decoded });
}

/** An `eachMessage` payload, as kafkajs's Runner (src/consumer/runner.js) passes it. */
export function payloadOf(batch: { topic: string; partition: number }, message: KafkaMessage) {
  return {
    topic: batch.topic,
    partition: batch.partition,
    message,
    heartbeat: async () => undefined,
    pause: () => () => undefined,
  };
}

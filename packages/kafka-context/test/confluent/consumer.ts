// A consumer and a producer on @confluentinc/kafka-javascript's KafkaJS-compatible API, as a user writes them:
// compiled against confluent's own types by test/smoke/confluent-types.test.mjs (the library's native binding
// cannot be built here, so it is never run). Each `@ts-expect-error` is a misuse that must not compile.
import type { KafkaJS } from '@confluentinc/kafka-javascript';
import { eachMessage, messageHeaders } from '@ambient/kafka-context';

export async function consume(consumer: KafkaJS.Consumer): Promise<void> {
  // The slot types the payload: the handler gets confluent's own EachMessagePayload.
  const handle = eachMessage(async ({ topic, message }: KafkaJS.EachMessagePayload) => {
    // Undefined on a record with no headers, whatever the type says of record batches.
    const headers: KafkaJS.IHeaders = message.headers ?? {};
    return `${topic} ${message.offset} ${Object.keys(headers).length}`;
  });
  const config: KafkaJS.ConsumerRunConfig = {
    eachMessage: async (payload) => void (await handle(payload)),
    // Per batch: the same handler for each message, with the batch's topic and partition.
    eachBatch: async ({ batch, resolveOffset, heartbeat }) => {
      for (const message of batch.messages) {
        await handle({ topic: batch.topic, partition: batch.partition, message, heartbeat, pause: () => () => {} });
        resolveOffset(message.offset);
      }
    },
  };
  await consumer.run(config);
  // @ts-expect-error: a handler of another shape does not fit the slot
  const wrong: KafkaJS.ConsumerRunConfig = { eachMessage: eachMessage((topic: string) => topic.length) };
  void wrong;
}

export async function produce(producer: KafkaJS.Producer): Promise<void> {
  const message: KafkaJS.Message = { value: 'order', headers: messageHeaders({ 'x-tenant': 't1' }) };
  await producer.send({ topic: 'orders', messages: [message, { value: 'plain', headers: messageHeaders() }] });
  // @ts-expect-error: headers are an object of strings or bytes, not a list
  messageHeaders([['x-tenant', 't1']]);
}

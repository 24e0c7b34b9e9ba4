import { expect, test } from 'tstyche';
import type { Message as PlatformaticMessage, MessageToProduce } from '@platformatic/kafka';
import type { ConsumerRunConfig, EachMessagePayload, IHeaders, KafkaMessage, Message } from 'kafkajs';
import { eachMessage, messageHandler, messageHeaders } from '@ambient/kafka-context';

test('messageHeaders keeps the header values given and adds strings', () => {
  expect(messageHeaders()).type.toBe<{ [key: string]: string }>();
  const headers: IHeaders = { 'x-tenant': Buffer.from('t1') };
  expect(messageHeaders(headers)).type.toBeAssignableTo<Message['headers']>();
  expect(messageHeaders({ 'x-tenant': 't1' })).type.toBe<{ [key: string]: string }>();
  // @platformatic/kafka with string serializers takes an object of strings.
  expect(messageHeaders()).type.toBeAssignableTo<MessageToProduce<string, string, string, string>['headers']>();
  expect(messageHeaders()).type.not.toBeAssignableTo<MessageToProduce['headers']>();
});

test('messageHeaders of a Map with Buffer keys is such a Map, as @platformatic/kafka takes by default', () => {
  expect(messageHeaders(new Map<Buffer, Buffer>())).type.toBe<Map<Buffer, Buffer>>();
  expect(messageHeaders(new Map<Buffer, Buffer>())).type.toBeAssignableTo<MessageToProduce['headers']>();
  expect(messageHeaders).type.not.toBeCallableWith(new Map<string, string>());
  expect(messageHeaders).type.not.toBeCallableWith('x-request-id');
  expect(messageHeaders).type.not.toBeCallableWith({ 'x-request-id': 42 }, 'extra');
});

test("eachMessage keeps the handler's payload type and result, and fits consumer.run", () => {
  const handler = eachMessage(async (payload: EachMessagePayload) => payload.message.offset);
  expect(handler).type.toBe<(payload: EachMessagePayload) => Promise<string>>();
  // As consumer.run({ eachMessage: eachMessage(…) }) types it: the payload is kafkajs's, from the slot.
  const config: ConsumerRunConfig = {
    eachMessage: eachMessage(async ({ topic, message, heartbeat }) => {
      expect(topic).type.toBe<string>();
      expect(message).type.toBe<KafkaMessage>();
      expect(heartbeat).type.toBe<() => Promise<void>>();
    }),
  };
  expect(config).type.toBe<ConsumerRunConfig>();
  expect(eachMessage).type.not.toBeCallableWith(async () => undefined, { name: 42 });
  expect(eachMessage).type.not.toBeCallableWith(async () => undefined, { groupId: 'orders' });
  expect(eachMessage).type.not.toBeCallableWith(async (payload: { topic: number }) => payload);
});

test('per batch: a handler of { topic, partition, message } is called with a message of the batch', () => {
  const handle = eachMessage(async (_payload: Pick<EachMessagePayload, 'topic' | 'partition' | 'message'>) => {});
  const message = {} as KafkaMessage;
  expect(handle).type.toBeCallableWith({ topic: 'orders', partition: 0, message });
  const full = eachMessage(async (_payload: EachMessagePayload) => {});
  expect(full).type.not.toBeCallableWith({ topic: 'orders', partition: 0, message });
});

test("messageHandler keeps @platformatic/kafka's message type and the result", () => {
  const handle = messageHandler(async (message: PlatformaticMessage<string, string, string, string>) => message.value);
  expect(handle).type.toBe<(message: PlatformaticMessage<string, string, string, string>) => Promise<string>>();
  expect(messageHandler).type.toBeCallableWith(async (message: PlatformaticMessage) => message.headers.size);
  expect(messageHandler).type.not.toBeCallableWith(async (message: { topic: string; headers: string }) => message);
  expect(messageHandler).type.not.toBeCallableWith(async (message: PlatformaticMessage) => message, { link: 'no' });
});

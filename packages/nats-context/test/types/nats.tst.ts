import { expect, test } from 'tstyche';
import { headers as headers2, type JsMsg as JsMsg2, type Msg as Msg2, type NatsError } from 'nats';
import { headers as headers3, type Msg as Msg3 } from '@nats-io/transport-node';
import type { JsMsg as JsMsg3 } from '@nats-io/jetstream';
import { messageHandler, messageHeaders, subscriptionCallback } from '@ambient/nats-context';

test("messageHeaders takes either client's headers() and gives them back as they are", () => {
  expect(messageHeaders(headers2())).type.toBe<ReturnType<typeof headers2>>();
  expect(messageHeaders(headers3())).type.toBe<ReturnType<typeof headers3>>();
  expect(messageHeaders).type.not.toBeCallableWith({ 'x-request-id': 'req-1' });
  expect(messageHeaders).type.not.toBeCallableWith();
});

test("messageHandler keeps the message type and the handler's result, for core and JetStream messages", () => {
  expect(messageHandler(async (message: JsMsg3) => message.info.deliveryCount)).type.toBe<
    (message: JsMsg3) => Promise<number>
  >();
  expect(messageHandler((message: JsMsg2) => message.seq, { queue: 'ORDERS' })).type.toBe<
    (message: JsMsg2) => number
  >();
  expect(messageHandler((message: Msg3) => message.subject)).type.toBe<(message: Msg3) => string>();
  expect(messageHandler).type.not.toBeCallableWith((message: Msg3) => message, { queue: 42 });
  expect(messageHandler).type.not.toBeCallableWith((message: { data: Uint8Array }) => message);
});

test("subscriptionCallback fits a core subscription's callback slot of both clients", () => {
  const callback2 = subscriptionCallback((error: NatsError | null, message: Msg2) => [error, message]);
  expect(callback2).type.toBeAssignableTo<(error: NatsError | null, message: Msg2) => unknown>();
  const callback3 = subscriptionCallback((error: Error | null, message: Msg3) => [error, message]);
  expect(callback3).type.toBeAssignableTo<(error: Error | null, message: Msg3) => unknown>();
  expect(subscriptionCallback).type.not.toBeCallableWith((_: Error | null, message: Msg3) => message, { link: 1 });
});

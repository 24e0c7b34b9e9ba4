import { expect, test } from 'tstyche';
import {
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  type Message,
  type MessageAttributeValue,
} from '@aws-sdk/client-sqs';
import { Consumer } from 'sqs-consumer';
import {
  messageAttributeNames,
  messageAttributes,
  messageHandler,
  type MessageAttributesLike,
  type SqsContextWarningCode,
} from '@ambient/sqs-context';

test("messageAttributes keeps the attributes' types and fits the SDK's send commands", () => {
  const attributes = messageAttributes({ tenant: { DataType: 'String', StringValue: 't1' } });
  expect(attributes.tenant.StringValue).type.toBeAssignableTo<string>();
  expect(messageAttributes()).type.toBe<MessageAttributesLike>();
  const sdk: Record<string, MessageAttributeValue> = {};
  expect(messageAttributes(sdk)).type.toBeAssignableTo<Record<string, MessageAttributeValue>>();
  expect(SendMessageCommand).type.toBeConstructableWith({
    QueueUrl: 'q',
    MessageBody: 'b',
    MessageAttributes: messageAttributes(),
  });
  expect(SendMessageBatchCommand).type.toBeConstructableWith({
    QueueUrl: 'q',
    Entries: [{ Id: 'a', MessageBody: 'b', MessageAttributes: messageAttributes(sdk) }],
  });
  expect(messageAttributes).type.not.toBeCallableWith('tenant');
  expect(messageAttributes).type.not.toBeCallableWith({ tenant: 't1' });
  expect(messageAttributes).type.not.toBeCallableWith({ tenant: { StringValue: 't1' } });
});

test("messageAttributeNames fits ReceiveMessage's and sqs-consumer's names", () => {
  expect(messageAttributeNames(['tenant'])).type.toBe<string[]>();
  expect(ReceiveMessageCommand).type.toBeConstructableWith({
    QueueUrl: 'q',
    MessageAttributeNames: messageAttributeNames(),
  });
  expect(messageAttributeNames).type.toBeCallableWith(['All'] as const);
  expect(messageAttributeNames).type.not.toBeCallableWith('All');
});

test("messageHandler keeps the handler's message type and result, and fits sqs-consumer's handleMessage", () => {
  const handler = messageHandler(async (message: Message) => message.Body?.length ?? 0, { queue: 'q' });
  expect(handler).type.toBe<(message: Message) => Promise<number>>();
  const consumer = Consumer.create({
    queueUrl: 'q',
    messageAttributeNames: messageAttributeNames(),
    handleMessage: messageHandler(async (message) => {
      expect(message).type.toBe<Message>();
      return message;
    }),
  });
  expect(consumer).type.toBe<Consumer>();
  expect(messageHandler).type.not.toBeCallableWith((message: string) => message);
  expect(messageHandler).type.not.toBeCallableWith(() => undefined, { queue: 42 });
  expect(messageHandler).type.not.toBeCallableWith(() => undefined, { queeu: 'q' });
  expect<SqsContextWarningCode>().type.toBe<'WARN_AMBIENT_SQS_ATTRIBUTES_FULL'>();
});

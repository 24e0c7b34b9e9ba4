import { expect, test } from 'tstyche';
import { consumeHandler, publishOptions, type ConsumeMessageLike } from '@ambient/amqp-context';

test('publishOptions keeps the options given and always has headers', () => {
  const options = publishOptions({ persistent: true, messageId: 'm-1' });
  expect(options.persistent).type.toBe<boolean>();
  expect(options.headers).type.toBe<Record<string, unknown>>();
  expect(publishOptions).type.not.toBeCallableWith('persistent');
});

test("consumeHandler keeps the handler's message type and result", () => {
  interface Message extends ConsumeMessageLike {
    content: Buffer;
  }
  const handler = consumeHandler(async (message: Message | null) => message?.content.length ?? 0, { queue: 'q' });
  expect(handler).type.toBe<(message: Message | null) => Promise<number>>();
  expect(consumeHandler).type.not.toBeCallableWith(() => undefined, { queue: 42 });
});

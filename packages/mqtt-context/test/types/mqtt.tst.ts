import { expect, test } from 'tstyche';
import type { IClientPublishOptions, IPublishPacket, MqttClient, OnMessageCallback } from 'mqtt';
import { messageListener, publishOptions, type UserProperties } from '@ambient/mqtt-context';

declare const client: MqttClient;
declare const given: IClientPublishOptions;

test("publishOptions keeps mqtt.js's publish options and always has user properties", () => {
  const options = publishOptions({ qos: 1, retain: true, properties: { contentType: 'application/json' } });
  expect(options.qos).type.toBe<1>();
  expect(options.properties.contentType).type.toBe<string>();
  expect(options.properties.userProperties).type.toBe<UserProperties>();
  expect(publishOptions(given)).type.toBeAssignableTo<IClientPublishOptions>();
  expect(publishOptions().properties.userProperties).type.toBe<UserProperties>();
  expect(client.publish).type.toBeCallableWith('t', 'body', publishOptions({ qos: 1 }));
  expect(publishOptions).type.not.toBeCallableWith('qos1');
  expect(publishOptions).type.not.toBeCallableWith({ qso: 1 });
  expect(publishOptions).type.not.toBeCallableWith({ properties: 'x' });
  expect(publishOptions).type.not.toBeCallableWith({ properties: { userProperties: { 'x-tenant': 42 } } });
});

test("messageListener fits client.on('message'), which types the handler's arguments", () => {
  client.on(
    'message',
    messageListener((topic, payload, packet) => {
      expect(topic).type.toBe<string>();
      expect(payload).type.toBe<Buffer>();
      expect(packet).type.toBe<IPublishPacket>();
    }),
  );
  const listener = messageListener(async (_topic: string, payload: Buffer, _packet: IPublishPacket) => payload.length, {
    name: 'orders',
    link: true,
  });
  expect(listener).type.toBeAssignableTo<OnMessageCallback>();
  expect(listener('t', Buffer.alloc(0), {} as IPublishPacket)).type.toBe<Promise<number>>();
});

test('messageListener refuses what is not a listener and options it does not know', () => {
  expect(messageListener).type.not.toBeCallableWith('handler');
  expect(messageListener).type.not.toBeCallableWith(() => undefined, { name: 42 });
  expect(messageListener).type.not.toBeCallableWith(() => undefined, { attempt: 1 });
  expect(messageListener).type.not.toBeCallableWith((_topic: number) => undefined);
});

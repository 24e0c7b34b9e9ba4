// publishOptions and messageListener on mqtt.js's own objects: PUBLISH packets encoded and decoded by its codec
// (mqtt-packet) from the properties publishOptions gives, and messages emitted by a real MqttClient as its
// handlePublish emits them. The real broker, across processes: test/smoke/publish-to-consumer.test.mjs.
import { createRequire } from 'node:module';
import { MqttClient, type IPublishPacket } from 'mqtt';
import type * as MqttPacket from 'mqtt-packet';
import { AmbientError, requestContext } from '@ambient/core';
import { contextCarrier } from '@ambient/correlation';
import { messageListener, publishOptions, type UserProperties } from '@ambient/mqtt-context';

// mqtt's own codec, resolved as mqtt resolves it (it is mqtt's dependency, not ours).
const mqttPacket = createRequire(require.resolve('mqtt'))('mqtt-packet') as typeof MqttPacket;

const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const spanId = '00f067aa0ba902b7';
const traceparent = `00-${traceId}-${spanId}-01`;
const uuidv7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const topic = 'orders/created';

/** A PUBLISH packet as mqtt.js hands it to 'message' listeners: encoded, then decoded, by its codec. */
function received(properties: IPublishPacket['properties'], protocolVersion: 4 | 5 = 5, dup = false): IPublishPacket {
  const sent: IPublishPacket = {
    cmd: 'publish',
    topic,
    payload: Buffer.from('{}'),
    qos: 1,
    messageId: 7,
    dup,
    retain: false,
  };
  if (properties !== undefined) sent.properties = properties;
  const parser = mqttPacket.parser({ protocolVersion });
  let packet: IPublishPacket | undefined;
  parser.on('packet', (decoded: MqttPacket.Packet) => (packet = decoded as IPublishPacket));
  parser.parse(mqttPacket.generate(sent, { protocolVersion }));
  return packet!;
}

/** A client that never connects: what mqtt.js calls its 'message' listeners on (`this`). */
const client = (protocolVersion?: 3 | 4 | 5) =>
  new MqttClient(
    () => {
      throw new Error('this client does not connect');
    },
    protocolVersion === undefined ? { manualConnect: true } : { manualConnect: true, protocolVersion },
  );

/** Emits one message on `on` as mqtt.js's handlePublish does, and gives back what the listener saw. */
function deliver<R>(
  handler: () => R,
  packet: IPublishPacket,
  on = client(5),
  options?: Parameters<typeof messageListener>[1],
) {
  let seen: R | undefined;
  on.on(
    'message',
    messageListener(() => (seen = handler()), options),
  );
  on.emit('message', topic, Buffer.from('{}'), packet);
  return seen;
}

const scope = () => requestContext.snapshot();

describe('publishOptions(options)', () => {
  it('adds the current scope to the user properties; what is given wins, is kept, and is not changed', () => {
    const options = {
      qos: 1 as const,
      retain: false,
      properties: {
        contentType: 'application/json',
        userProperties: { tenant: 't1', 'x-request-id': 'set-by-caller' },
      },
    };
    const published = requestContext.run(
      { requestId: 'req-1', traceId, spanId, traceFlags: '01', traceState: 'congo=t61' },
      () => publishOptions(options),
    );
    expect(published).toEqual({
      qos: 1,
      retain: false,
      properties: {
        contentType: 'application/json',
        userProperties: {
          'x-request-id': 'set-by-caller',
          'x-correlation-id': 'req-1',
          traceparent,
          tracestate: 'congo=t61',
          tenant: 't1',
        },
      },
    });
    expect(options).toEqual({
      qos: 1,
      retain: false,
      properties: {
        contentType: 'application/json',
        userProperties: { tenant: 't1', 'x-request-id': 'set-by-caller' },
      },
    });
    expect(published.properties).not.toBe(options.properties);
  });

  it('outside any scope gives a copy, with no ids', () => {
    const options = { qos: 0 as const };
    expect(publishOptions(options)).toEqual({ qos: 0, properties: { userProperties: {} } });
    expect(publishOptions(options)).not.toBe(options);
    expect(publishOptions()).toEqual({ properties: { userProperties: {} } });
  });

  it.each([
    ['a string', 'qos1', 'ERR_AMBIENT_MQTT_INVALID_ARGUMENT'],
    ['null', null, 'ERR_AMBIENT_MQTT_INVALID_ARGUMENT'],
    ['an array', [], 'ERR_AMBIENT_MQTT_INVALID_ARGUMENT'],
    ['properties that are no object', { properties: 'x' }, 'ERR_AMBIENT_MQTT_INVALID_OPTION'],
    ['properties that are null', { properties: null }, 'ERR_AMBIENT_MQTT_INVALID_OPTION'],
    [
      'user properties that are no object',
      { properties: { userProperties: ['x'] } },
      'ERR_AMBIENT_MQTT_INVALID_OPTION',
    ],
  ])('refuses %s', (_what, options, code) => {
    expect(() => publishOptions(options as never)).toThrow(expect.objectContaining({ code }));
  });
});

describe('messageListener(handler, options)', () => {
  const published = (values: Parameters<typeof requestContext.run>[0]) =>
    requestContext.run(values, () => publishOptions({ qos: 1 }).properties);

  it('handles a message in a fresh scope: new id, the publisher as causation, its chain and trace, the job', () => {
    const packet = received(
      published({ requestId: 'req-1', correlationId: 'chain', traceId, spanId, traceState: 'congo=t61' }),
    );
    // Called inside another run, as a limiter or mqtt.js's next packet after a handler's callback would call it.
    const seen = requestContext.run({ requestId: 'enclosing', correlationId: 'other-chain' }, () =>
      deliver(scope, packet),
    );
    expect(seen).toEqual({
      requestId: expect.stringMatching(uuidv7) as string,
      causationId: 'req-1',
      correlationId: 'chain',
      traceId,
      spanId,
      traceFlags: '00',
      traceState: 'congo=t61',
      job: { name: topic, system: 'mqtt' },
    });
  });

  it('states no attempt: dup says only that this connection may have had the packet before', () => {
    const packet = received(published({ requestId: 'req-1' }), 5, true);
    expect(packet.dup).toBe(true);
    expect(deliver(scope, packet)?.job).toEqual({ name: topic, system: 'mqtt' });
  });

  it('a message published from a run continues the chain: the run as causation, the same correlation and trace', () => {
    const first = received(published({ requestId: 'req-1', correlationId: 'chain', traceId, spanId }));
    const { run, next } = deliver(
      () => ({ run: scope()!, next: received(publishOptions({ qos: 1 }).properties) }),
      first,
    )!;
    const nextRun = deliver(scope, next)!;
    expect(nextRun).toMatchObject({ causationId: run.requestId, correlationId: 'chain', traceId });
    expect(nextRun.requestId).toMatch(uuidv7);
    expect(nextRun.requestId).not.toBe(run.requestId);
  });

  it.each<[string, () => unknown]>([
    ['no properties', () => received(undefined)],
    ['no user properties', () => received({ contentType: 'text/plain' })],
    [
      'garbage user properties',
      () =>
        received({
          userProperties: {
            'x-request-id': '<script>alert(1)</script>',
            'x-correlation-id': 'an id with spaces',
            traceparent: 'nonsense',
            tracestate: '<script>',
          },
        }),
    ],
    [
      'every name sent twice (an array: which one is meant cannot be known)',
      () =>
        received({
          userProperties: {
            'x-request-id': ['req-a', 'req-b'],
            'x-correlation-id': ['chain-a', 'chain-b'],
            traceparent: [traceparent, traceparent],
          },
        }),
    ],
    ['an MQTT 3.1.1 packet', () => received(undefined, 4)],
    [
      'user properties whose getters throw',
      () => ({
        topic,
        properties: {
          userProperties: Object.defineProperty({}, 'x-request-id', {
            enumerable: true,
            get() {
              throw new Error('getter');
            },
          }),
        },
      }),
    ],
    [
      'properties whose getter throws',
      () =>
        Object.defineProperty({}, 'properties', {
          get() {
            throw new Error('getter');
          },
        }),
    ],
    ['user properties that are a list', () => ({ properties: { userProperties: [['x-request-id', 'req-1']] } })],
    ['no packet at all', () => undefined],
    ['a string for a packet', () => 'x-request-id=req-1'],
  ])('a message with %s starts a fresh chain, and logs none of it', (_what, packet) => {
    const seen = deliver(scope, packet() as IPublishPacket)!;
    expect(seen).toEqual({ requestId: expect.stringMatching(uuidv7) as string, job: { name: topic, system: 'mqtt' } });
    expect(JSON.stringify(seen)).not.toMatch(/script|spaces|nonsense|req-a|req-b|chain-a|req-1/);
  });

  it('names the run by the option or the topic; link drops the trace; a generator makes the ids', () => {
    const packet = received(published({ requestId: 'req-1', traceId, spanId }));
    expect(deliver(scope, packet, client(5), { name: 'orders' })?.job?.name).toBe('orders');
    let seen: ReturnType<typeof scope>;
    messageListener(() => (seen = scope()))('', Buffer.alloc(0), packet);
    expect(seen?.job?.name).toBe('message');
    const linked = deliver(scope, packet, client(5), { link: true, generateRequestId: () => 'run-1' });
    expect(linked).toMatchObject({ requestId: 'run-1', causationId: 'req-1', correlationId: 'req-1' });
    expect(linked?.traceId).toBeUndefined();
    const generatorFails = deliver(scope, packet, client(5), {
      generateRequestId: () => {
        throw new Error('generator');
      },
    });
    expect(generatorFails?.requestId).toMatch(uuidv7);
  });

  it("passes the handler's result, promise, errors, `this` and arguments through", async () => {
    const boom = new Error('handler failed');
    const packet = received(undefined);
    const payload = Buffer.from('{}');
    expect(messageListener((...args: unknown[]) => args)(topic, payload, packet)).toEqual([topic, payload, packet]);
    expect(() =>
      messageListener(() => {
        throw boom;
      })(topic, payload, packet),
    ).toThrow(boom);
    await expect(messageListener(() => Promise.reject(boom))(topic, payload, packet)).rejects.toBe(boom);
    await expect(messageListener(async () => scope()?.job)(topic, payload, packet)).resolves.toEqual({
      name: topic,
      system: 'mqtt',
    });
    const mqttClient = client(5);
    let self: unknown;
    mqttClient.on(
      'message',
      messageListener(function (this: unknown) {
        self = this;
      }),
    );
    mqttClient.emit('message', topic, payload, packet);
    expect(self).toBe(mqttClient);
  });

  it('warns once that an MQTT 3.1.1 or 3.1 client carries no ids; MQTT 5 and a call by hand say nothing', () => {
    const emitWarning = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      const packet = received(undefined, 4);
      deliver(scope, received(undefined, 5), client(5));
      messageListener(scope)(topic, Buffer.alloc(0), packet);
      expect(emitWarning).not.toHaveBeenCalled();
      const v311 = client();
      expect(v311.options.protocolVersion).toBe(4); // mqtt.js's default
      const fresh = deliver(scope, packet, v311);
      deliver(scope, packet, v311);
      deliver(scope, packet, client(3));
      expect(fresh).toEqual({
        requestId: expect.stringMatching(uuidv7) as string,
        job: { name: topic, system: 'mqtt' },
      });
      expect(emitWarning.mock.calls.map((call) => call[1])).toEqual([
        { type: 'AmbientWarning', code: 'WARN_AMBIENT_MQTT_NOT_V5' },
      ]);
    } finally {
      emitWarning.mockRestore();
    }
  });

  it('refuses a handler that is no function and bad options, with a code', () => {
    expect(() => messageListener('handler' as never)).toThrow(
      expect.objectContaining({ code: 'ERR_AMBIENT_MQTT_INVALID_ARGUMENT' }),
    );
    expect(() => messageListener('handler' as never)).toThrow(AmbientError);
    for (const options of [{ topic: 'x' }, { name: '' }, { link: 'yes' }, { generateRequestId: 'id' }, 'name']) {
      expect(() => messageListener(() => undefined, options as never)).toThrow(
        expect.objectContaining({ code: 'ERR_AMBIENT_MQTT_INVALID_OPTION' }),
      );
    }
  });
});

describe('the carrier is the one every transport uses', () => {
  it('user properties publishOptions writes are contextCarrier(), under the names W3C gives the MQTT binding', () => {
    const values = { requestId: 'req-1', traceId, spanId, traceFlags: '01' };
    const userProperties: UserProperties = requestContext.run(values, () => publishOptions().properties.userProperties);
    expect(userProperties).toEqual(requestContext.run(values, contextCarrier));
    expect(Object.keys(userProperties)).toEqual(['x-request-id', 'x-correlation-id', 'traceparent']);
  });
});

// messageHeaders, eachMessage and messageHandler on records as the client libraries deliver them, without a broker
// (none can be installed here): kafkajs's own record codec and consumer Batch (helpers/kafkajs-records.ts); the
// payloads of @confluentinc/kafka-javascript's KafkaJS API, which cannot be installed here (its install fetches a
// native binary), built as its lib/kafkajs/_consumer.js builds them; @platformatic/kafka's message shape (its own
// codec and serializers, an ES module jest cannot load, run in test/smoke/platformatic-records.test.mjs).
import type { EachMessagePayload, KafkaMessage } from 'kafkajs';
import { AmbientError, requestContext, type RequestStore } from '@ambient/core';
import { eachMessage, messageHandler, messageHeaders, type MessageHandlerOptions } from '@ambient/kafka-context';
import { delivered, payloadOf } from './helpers/kafkajs-records.js';

const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const spanId = '00f067aa0ba902b7';
const uuidv7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const request = { requestId: 'req-1', correlationId: 'chain', traceId, spanId, traceFlags: '01' };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const seen = () => requestContext.snapshot();

/** What a handler sees for a record sent with `headers`, through kafkajs's codec and eachMessage. */
async function consumed(headers: KafkaMessage['headers'], options?: MessageHandlerOptions) {
  const batch = await delivered('orders', [{ value: '{}', headers }]);
  return eachMessage(seen, options)(payloadOf(batch, batch.messages[0]!));
}

/** Fresh valid ids, none of the producer's, and none of `raw` anywhere in the scope. */
function expectFresh(scope: Readonly<Partial<RequestStore>> | undefined, raw = '') {
  expect(scope?.requestId).toMatch(uuidv7);
  expect(scope?.causationId).toBeUndefined();
  expect(scope?.correlationId).toBeUndefined();
  expect(scope?.traceId).toBeUndefined();
  if (raw !== '') expect(JSON.stringify(scope)).not.toContain(raw);
}

describe('messageHeaders(headers)', () => {
  it("adds the current scope to an object of headers as strings; the caller's headers win", () => {
    const given = { 'x-tenant': 't1', 'x-request-id': 'set-by-caller' };
    const headers = requestContext.run(request, () => messageHeaders(given));
    expect(headers).toEqual({
      'x-request-id': 'set-by-caller',
      'x-correlation-id': 'chain',
      traceparent: `00-${traceId}-${spanId}-01`,
      'x-tenant': 't1',
    });
    expect(given).toEqual({ 'x-tenant': 't1', 'x-request-id': 'set-by-caller' });
  });

  it('outside any scope returns a copy', () => {
    const given = { 'x-tenant': 't1' };
    expect(messageHeaders()).toEqual({});
    expect(messageHeaders(given)).toEqual(given);
    expect(messageHeaders(given)).not.toBe(given);
  });

  it("adds the scope to a Map with Buffer keys as Buffers; a caller's key wins by its bytes", () => {
    const given = new Map([
      [Buffer.from('x-correlation-id'), Buffer.from('mine')],
      [Buffer.from('x-tenant'), Buffer.from('t1')],
    ]);
    const headers = requestContext.run(request, () => messageHeaders(given));
    expect(headers).not.toBe(given);
    expect([...headers].map(([key, value]) => [key.toString(), value.toString()])).toEqual([
      ['x-request-id', 'req-1'],
      ['traceparent', `00-${traceId}-${spanId}-01`],
      ['x-correlation-id', 'mine'],
      ['x-tenant', 't1'],
    ]);
    expect([...headers].every(([key, value]) => Buffer.isBuffer(key) && Buffer.isBuffer(value))).toBe(true);
    expect([...messageHeaders(given)]).toEqual([...given]);
  });

  it.each([
    ['a string', 'x-request-id'],
    ['null', null],
    ['an array', [['x-request-id', 'r']]],
    ['a Map with a string key (string serializers take an object)', new Map([['x-tenant', 't1']])],
  ])('refuses %s', (_what, headers) => {
    expect(() => messageHeaders(headers as never)).toThrow(
      expect.objectContaining({ code: 'ERR_AMBIENT_KAFKA_INVALID_ARGUMENT' }),
    );
  });
});

describe('eachMessage(handler, options) with kafkajs records', () => {
  it('runs a record in a fresh scope: new id, the producer as causation, its chain and trace, the job', async () => {
    const headers = requestContext.run(request, () => messageHeaders({ 'x-tenant': 't1' }));
    const batch = await delivered('orders', [{ key: 'k', value: '{}', headers }]);
    const [message] = batch.messages;
    // Consumed headers are bytes, whatever was sent.
    expect(Object.values(message!.headers!).every((value) => Buffer.isBuffer(value))).toBe(true);
    const payload = payloadOf(batch, message!);
    const [scope, handed] = await requestContext.run({ requestId: 'enclosing' }, () =>
      eachMessage(async (given: typeof payload) => {
        await sleep(1);
        return [seen(), given] as const;
      })(payload),
    );
    expect(handed).toBe(payload);
    expect(scope).toMatchObject({
      causationId: 'req-1',
      correlationId: 'chain',
      traceId,
      spanId,
      job: { name: 'orders', system: 'kafka', queue: 'orders' },
    });
    expect(scope?.job).toEqual({ name: 'orders', system: 'kafka', queue: 'orders' });
    expect(scope?.requestId).toMatch(uuidv7);
  });

  it('per batch: each message of a batch in its own run, offsets resolved in order, none crossing', async () => {
    const count = 20;
    const sent = Array.from({ length: count }, (_, n) =>
      requestContext.run({ requestId: `req-${n}`, ...(n % 3 === 0 ? { correlationId: `chain-${n}` } : {}) }, () => ({
        value: String(n),
        headers: messageHeaders(),
      })),
    );
    const batches = await Promise.all([delivered('a', sent.slice(0, 10)), delivered('b', sent.slice(10))]);
    const scopes = new Map<string, Readonly<Partial<RequestStore>> | undefined>();
    const resolved: string[] = [];
    const handle = eachMessage(async ({ message }: Pick<EachMessagePayload, 'topic' | 'partition' | 'message'>) => {
      await sleep(Math.floor(Math.random() * 5));
      scopes.set(String(message.value), seen());
    });
    // As the README's eachBatch, two partitions at once (partitionsConsumedConcurrently).
    await Promise.all(
      batches.map(async (batch) => {
        for (const message of batch.messages) {
          await handle({ topic: batch.topic, partition: batch.partition, message });
          resolved.push(`${batch.topic}:${message.offset}`);
          await sleep(0); // heartbeat()
        }
      }),
    );
    expect(resolved.filter((at) => at.startsWith('a:'))).toEqual(Array.from({ length: 10 }, (_, i) => `a:${i}`));
    const requestIds = new Set<string | undefined>();
    for (let n = 0; n < count; n++) {
      const scope = scopes.get(String(n));
      expect(scope).toMatchObject({
        causationId: `req-${n}`,
        correlationId: n % 3 === 0 ? `chain-${n}` : `req-${n}`,
        job: { name: n < 10 ? 'a' : 'b', queue: n < 10 ? 'a' : 'b' },
      });
      requestIds.add(scope?.requestId);
    }
    expect(requestIds.size).toBe(count);
  });

  it.each([
    ['no headers', {}, ''],
    ['a hostile id', { 'x-request-id': '<script>alert(1)</script>', traceparent: 'x' }, '<script>'],
    ['bytes that are not UTF-8', { 'x-request-id': Buffer.from([0xff, 0xfe, 0x3c, 0x73]) }, '\ufffd'],
    ['an oversize id', { 'x-request-id': 'r'.repeat(5000), 'x-correlation-id': 'c'.repeat(5000) }, 'rrrr'],
    [
      'a repeated key (kafkajs gives an array)',
      { 'x-request-id': ['req-a', 'req-b'], traceparent: ['x', 'y'] },
      'req-a',
    ],
  ])('a record with %s gets fresh valid ids', async (_what, headers, raw) => {
    expectFresh(await consumed(headers), raw);
  });

  it('a payload that is no object, has no message, or whose getters throw gets fresh valid ids', () => {
    const handle = eachMessage(seen);
    const throwing = {
      topic: 'orders',
      get message(): never {
        throw new Error('getter');
      },
    };
    const headersThrowing = {
      topic: 'orders',
      message: {
        headers: {
          get 'x-request-id'(): never {
            throw new Error('getter');
          },
        },
      },
    };
    for (const payload of [null, 42, { topic: 'orders' }, throwing, headersThrowing]) {
      expectFresh(handle(payload as never));
    }
    expect(handle(throwing)?.job).toEqual({ name: 'message', system: 'kafka' });
    expect(handle(headersThrowing)?.job?.name).toBe('orders');
  });

  it("@confluentinc/kafka-javascript's KafkaJS API: headers undefined when none, Buffers, arrays for a repeated key", () => {
    // As its lib/kafkajs/_consumer.js #createPayload and #createHeaders turn librdkafka's headers
    // ([{ key: Buffer }, …] or undefined) into a kafkajs payload (the library could not be installed here).
    const createHeaders = (headers: Record<string, Buffer>[] | undefined) => {
      if (headers === undefined) return undefined;
      const result: Record<string, Buffer | Buffer[]> = {};
      for (const header of headers) {
        for (const [key, value] of Object.entries(header)) {
          const had = result[key];
          result[key] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
        }
      }
      return result;
    };
    const payload = (headers: Record<string, Buffer>[] | undefined) => ({
      topic: 'orders',
      partition: 0,
      message: {
        key: null,
        value: Buffer.from('{}'),
        timestamp: '1700000000000',
        attributes: 0,
        offset: '7',
        size: 2,
        leaderEpoch: 0,
        headers: createHeaders(headers),
      },
      heartbeat: async () => undefined,
      pause: () => () => undefined,
    });
    const sent = requestContext.run(request, () => messageHeaders());
    const rdkafka = Object.entries(sent).map(([key, value]) => ({ [key]: Buffer.from(value) }));
    const handle = eachMessage(seen);
    expect(handle(payload(rdkafka))).toMatchObject({ causationId: 'req-1', correlationId: 'chain', traceId });
    expectFresh(handle(payload(undefined)));
    // A key sent twice counts for nothing; the others still count.
    const twice = handle(payload([...rdkafka, { 'x-request-id': Buffer.from('req-2') }, rdkafka[2]!]));
    expect(twice).toMatchObject({ correlationId: 'chain', requestId: expect.stringMatching(uuidv7) });
    expect([twice?.causationId, twice?.traceId]).toEqual([undefined, undefined]);
    expect(JSON.stringify(twice)).not.toContain('req-2');
  });

  it('names the run by the option or the topic; link drops the trace; a generator makes the ids', async () => {
    const headers = requestContext.run(request, () => messageHeaders());
    expect((await consumed(headers, { name: 'billing' }))?.job).toEqual({
      name: 'billing',
      system: 'kafka',
      queue: 'orders',
    });
    const linked = await consumed(headers, { link: true, generateRequestId: () => 'run-1' });
    expect(linked).toMatchObject({ requestId: 'run-1', causationId: 'req-1', correlationId: 'chain' });
    expect(linked?.traceId).toBeUndefined();
  });

  it("passes the handler's result, promise and errors through", async () => {
    const boom = new Error('handler failed');
    const payload = { topic: 'orders', message: { headers: {} } };
    expect(eachMessage(() => 42)(payload)).toBe(42);
    expect(() =>
      eachMessage(() => {
        throw boom;
      })(payload),
    ).toThrow(boom);
    await expect(eachMessage(() => Promise.reject(boom))(payload)).rejects.toBe(boom);
  });

  it('refuses a handler that is no function and bad options', () => {
    expect(() => eachMessage('handler' as never)).toThrow(AmbientError);
    expect(() => eachMessage('handler' as never)).toThrow(
      expect.objectContaining({ code: 'ERR_AMBIENT_KAFKA_INVALID_ARGUMENT' }),
    );
    for (const options of [{ topic: 'orders' }, { name: '' }, { link: 'yes' }, { generateRequestId: 'id' }, 'x']) {
      expect(() => eachMessage(() => undefined, options as never)).toThrow(
        expect.objectContaining({ code: 'ERR_AMBIENT_KAFKA_INVALID_OPTION' }),
      );
    }
  });
});

describe('messageHandler(handler, options) with @platformatic/kafka messages', () => {
  const message = (headers: unknown, topic = 'orders') => ({ topic, partition: 0, offset: 0n, headers }) as never;
  const bytes = (entries: [string, string][]) =>
    new Map(entries.map(([key, value]) => [Buffer.from(key), Buffer.from(value)]));
  const carried = (): [string, string][] => Object.entries(requestContext.run(request, () => messageHeaders()));

  it('reads Buffer keys and values (default deserializers) and strings (string deserializers)', async () => {
    const handle = messageHandler(async (_message: { topic: string; headers: Map<unknown, unknown> }) => {
      await sleep(1);
      return seen();
    });
    for (const headers of [bytes([...carried(), ['x-tenant', 't1']]), new Map(carried())]) {
      const scope = await handle(message(headers));
      expect(scope).toMatchObject({ causationId: 'req-1', correlationId: 'chain', traceId, spanId });
      expect(scope?.job).toEqual({ name: 'orders', system: 'kafka', queue: 'orders' });
    }
  });

  it.each([
    ['no headers', () => new Map()],
    ['a hostile id', () => bytes([['x-request-id', '<script>alert(1)</script>']])],
    ['bytes that are not UTF-8', () => new Map([[Buffer.from('x-request-id'), Buffer.from([0xff, 0xfe])]])],
    ['an oversize id', () => bytes([['x-request-id', 'r'.repeat(5000)]])],
    [
      'keys that are no text, or too long to be ours',
      () =>
        new Map<unknown, unknown>([
          [1, 'req-1'],
          [Buffer.alloc(64), 'x'],
        ]),
    ],
    [
      'values of another type',
      () =>
        new Map<unknown, unknown>([
          ['x-request-id', 42],
          ['x-correlation-id', { id: 'c' }],
        ]),
    ],
    ['headers that are no Map', () => Object.fromEntries(carried())],
  ])('a message with %s gets fresh valid ids', (_what, headers) => {
    const scope = messageHandler(seen)(message(headers()));
    expectFresh(scope, '<script>');
  });

  it('a key sent twice (Buffer keys stay apart in a Map) counts for nothing; the others still count', () => {
    const scope = messageHandler(seen)(
      message(bytes([...carried(), ['x-request-id', 'req-2'], ['x-request-id', 'req-3']])),
    );
    expect(scope).toMatchObject({ correlationId: 'chain', traceId, requestId: expect.stringMatching(uuidv7) });
    expect(scope?.causationId).toBeUndefined();
    expect(JSON.stringify(scope)).not.toMatch(/req-[123]/);
  });

  it('a message that is no object, or whose Map throws, gets fresh valid ids', () => {
    const hostile = new Map([[Buffer.from('x-request-id'), Buffer.from('req-1')]]);
    hostile[Symbol.iterator] = () => {
      throw new Error('iterator');
    };
    for (const given of [null, 'message', message(hostile)]) expectFresh(messageHandler(seen)(given as never));
    expect(messageHandler(seen)(message(new Map(), ''))?.job).toEqual({ name: 'message', system: 'kafka' });
  });

  it("passes the handler's result and errors through; refuses bad arguments", async () => {
    const boom = new Error('handler failed');
    await expect(messageHandler(() => Promise.reject(boom))(message(new Map()))).rejects.toBe(boom);
    expect(messageHandler(() => 'done', { name: 'n' })(message(new Map()))).toBe('done');
    expect(() => messageHandler(undefined as never)).toThrow(
      expect.objectContaining({ code: 'ERR_AMBIENT_KAFKA_INVALID_ARGUMENT' }),
    );
    expect(() => messageHandler(() => undefined, { groupId: 'g' } as never)).toThrow(
      expect.objectContaining({ code: 'ERR_AMBIENT_KAFKA_INVALID_OPTION' }),
    );
  });
});

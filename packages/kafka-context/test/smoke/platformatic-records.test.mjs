// @platformatic/kafka's own record codec and serializers (an ES module, which jest cannot load), without a broker
// (none can be installed here): produced headers pass its sendOptionsValidator and its producer's serialization
// (Producer#send: an object becomes a Map, each key and value goes through the header serializers), are encoded
// by createRecordsBatch and decoded by readRecordsBatch, and become a message's Map as its MessagesStream makes it
// (through the header deserializers). messageHandler then runs the message in the producer's chain.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  Reader,
  createRecordsBatch,
  noopDeserializer,
  noopSerializer,
  readRecordsBatch,
  sendOptionsValidator,
  stringDeserializers,
  stringSerializers,
} from '@platformatic/kafka';
import { requestContext } from '@ambient/core';
import { messageHandler, messageHeaders } from '@ambient/kafka-context';

const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const spanId = '00f067aa0ba902b7';
const uuidv7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const bytes = { headerKey: noopSerializer, headerValue: noopSerializer };
const fromBytes = { headerKey: noopDeserializer, headerValue: noopDeserializer };

/** The message a consumer stream gives for `message`, produced and consumed with these serializers. */
function roundTrip(message, serializers, deserializers) {
  assert.ok(sendOptionsValidator({ messages: [message] }), JSON.stringify(sendOptionsValidator.errors));
  // As Producer#send serializes a message's headers.
  const headers = message.headers instanceof Map ? message.headers : new Map(Object.entries(message.headers));
  const serialized = new Map();
  for (const [key, value] of headers) serialized.set(serializers.headerKey(key), serializers.headerValue(value));
  const record = { ...message, value: Buffer.from(message.value), headers: serialized, partition: 0 };
  const batch = readRecordsBatch(Reader.from(createRecordsBatch([record]).buffer));
  const [consumed] = batch.records;
  // As MessagesStream turns a record's headers into the message's Map.
  const map = new Map();
  for (const [key, value] of consumed.headers) map.set(deserializers.headerKey(key), deserializers.headerValue(value));
  return {
    topic: message.topic,
    partition: 0,
    offset: batch.firstOffset,
    key: undefined,
    value: consumed.value,
    headers: map,
  };
}

const request = { requestId: 'req-1', correlationId: 'chain', traceId, spanId, traceFlags: '01' };
const inScope = () => requestContext.snapshot();

test('default serializers: a Map with Buffer keys and values, both ways', async () => {
  const headers = requestContext.run(request, () =>
    messageHeaders(new Map([[Buffer.from('x-tenant'), Buffer.from('t1')]])),
  );
  const message = roundTrip({ topic: 'orders', value: '{}', headers }, bytes, fromBytes);
  assert.ok([...message.headers].every(([key, value]) => Buffer.isBuffer(key) && Buffer.isBuffer(value)));
  assert.equal(message.headers.size, 4);
  const scope = await messageHandler(async () => inScope())(message);
  assert.match(scope.requestId, uuidv7);
  assert.deepEqual(
    {
      causationId: scope.causationId,
      correlationId: scope.correlationId,
      traceId: scope.traceId,
      spanId: scope.spanId,
    },
    { causationId: 'req-1', correlationId: 'chain', traceId, spanId },
  );
  assert.deepEqual(scope.job, { name: 'orders', system: 'kafka', queue: 'orders' });
});

test('string serializers: an object of strings, read back as a Map of strings', () => {
  const headers = requestContext.run(request, () => messageHeaders({ 'x-tenant': 't1' }));
  const message = roundTrip({ topic: 'orders', value: '{}', headers }, stringSerializers, stringDeserializers);
  assert.equal(message.headers.get('x-tenant'), 't1');
  const scope = messageHandler(inScope)(message);
  assert.equal(scope.causationId, 'req-1');
  assert.equal(scope.traceId, traceId);
});

test('a message from a plain producer, or with garbage headers, gets fresh valid ids', () => {
  const garbage = new Map([
    [Buffer.from('x-request-id'), Buffer.from('<script>alert(1)</script>')],
    [Buffer.from('x-correlation-id'), Buffer.from([0xff, 0xfe, 0x00])],
    [Buffer.from('traceparent'), Buffer.from('00-zz')],
  ]);
  for (const headers of [new Map(), garbage]) {
    const scope = messageHandler(inScope)(roundTrip({ topic: 'orders', value: '{}', headers }, bytes, fromBytes));
    assert.match(scope.requestId, uuidv7);
    assert.deepEqual([scope.causationId, scope.correlationId, scope.traceId], [undefined, undefined, undefined]);
    assert.doesNotMatch(JSON.stringify(scope), /script|zz/);
  }
});

// The headers each transport's handler context carries, read without a broker: Kafka (no broker runs on this
// machine), gRPC metadata, and Redis and TCP, whose messages carry no headers. AmbientModule's handler wrapping,
// applied to @nestjs/microservices' own servers and contexts (Nest 12), in-process.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { Metadata } from '@grpc/grpc-js';
import { Test } from '@nestjs/testing';
import {
  ClientKafka,
  ClientsModule,
  KafkaContext,
  RedisContext,
  ServerGrpc,
  ServerKafka,
  ServerRedis,
  ServerTCP,
  TcpContext,
  Transport,
} from '@nestjs/microservices';
import { requestContext } from '@ambient/core';
import { AmbientModule } from '@ambient/nestjs';

const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let registeredKafka;
before(async () => {
  // A client as ClientsModule.register() makes it: when the module is declared, before Ambient's providers exist.
  const clients = ClientsModule.register([
    { name: 'KAFKA', transport: Transport.KAFKA, options: { client: { brokers: ['127.0.0.1:9092'] } } },
  ]);
  // The module's providers install the wrapping, as they do when an application or a microservice is created.
  const module = await Test.createTestingModule({ imports: [AmbientModule.forRoot(), clients] }).compile();
  registeredKafka = module.get('KAFKA');
});

/** What a handler registered on `server` sees of requestContext when the server calls it with `args`. */
async function seenBy(server, args) {
  let seen;
  server.addHandler('orders.placed', async () => (seen = requestContext.snapshot()), true);
  await server.getHandlerByPattern('orders.placed')(...args);
  return seen;
}

test('Kafka: a message whose headers (Buffers, as kafkajs gives them) carry a request runs caused by it', async () => {
  const headers = {
    'x-request-id': Buffer.from('req-kafka'),
    'x-correlation-id': Buffer.from('chain-kafka'),
    traceparent: Buffer.from(`00-${traceId}-00f067aa0ba902b7-01`),
  };
  const context = new KafkaContext([{ headers, value: Buffer.from('{}') }, 0, 'orders', {}, async () => {}, {}]);
  const seen = await seenBy(new ServerKafka({ client: { brokers: ['127.0.0.1:9092'] } }), [{}, context]);
  assert.equal(seen.causationId, 'req-kafka');
  assert.equal(seen.correlationId, 'chain-kafka');
  assert.equal(seen.traceId, traceId);
  assert.match(seen.requestId, uuid);
  assert.deepEqual(seen.job, { name: 'orders.placed', system: 'kafka' });
});

test('gRPC: metadata carries the request as it does for any other transport', async () => {
  const metadata = new Metadata();
  metadata.set('x-request-id', 'req-grpc');
  metadata.set('x-correlation-id', 'chain-grpc');
  // A gRPC handler is called with (data, metadata, call); the proto is read only when the server listens.
  const server = new ServerGrpc({ package: 'orders', protoPath: 'orders.proto' });
  const seen = await seenBy(server, [{}, metadata, {}]);
  assert.equal(seen.causationId, 'req-grpc');
  assert.equal(seen.correlationId, 'chain-grpc');
  assert.equal(seen.job.system, 'grpc');
});

test('Redis and TCP messages carry no headers: each runs with fresh ids, and nothing of the caller', async () => {
  for (const [server, context] of [
    [new ServerRedis({}), new RedisContext(['orders.placed'])],
    [new ServerTCP({}), new TcpContext([{}, 'orders.placed'])],
  ]) {
    const seen = await requestContext.run({ requestId: 'req-caller' }, () => seenBy(server, [{}, context]));
    assert.match(seen.requestId, uuid);
    assert.equal(seen.causationId, undefined);
    assert.equal(seen.correlationId, undefined);
  }
});

test('forged and oversized ids in headers are dropped, never used', async () => {
  const headers = { 'x-request-id': Buffer.from('<script>'), 'x-correlation-id': Buffer.from('x'.repeat(500)) };
  const context = new KafkaContext([{ headers, value: Buffer.from('{}') }, 0, 'orders', {}, async () => {}, {}]);
  const seen = await seenBy(new ServerKafka({ client: { brokers: ['127.0.0.1:9092'] } }), [{}, context]);
  assert.match(seen.requestId, uuid);
  assert.equal(seen.causationId, undefined);
  assert.equal(seen.correlationId, undefined);
});

test('Kafka: a ClientKafka message made inside a request carries it, and a handler given it runs caused by it', async () => {
  assert.ok(registeredKafka instanceof ClientKafka);
  const client = registeredKafka;
  const message = requestContext.run({ requestId: 'req-sent', correlationId: 'chain-sent' }, () =>
    client.serializer.serialize({ order: 7 }, { pattern: 'orders.placed' }),
  );
  const sent = await message;
  assert.equal(sent.headers['x-request-id'], 'req-sent');
  assert.equal(sent.headers['x-correlation-id'], 'chain-sent');
  const own = await requestContext.run({ requestId: 'req-own' }, () =>
    client.serializer.serialize({ value: { order: 8 }, headers: { 'x-request-id': 'set-by-the-caller' } }),
  );
  assert.equal(own.headers['x-request-id'], 'set-by-the-caller', 'headers the caller set win');
  assert.deepEqual((await client.serializer.serialize({ order: 9 })).headers, {}, 'outside a scope: nothing added');
  // As kafkajs hands them to the consumer: Buffers.
  const received = Object.fromEntries(Object.entries(sent.headers).map(([key, value]) => [key, Buffer.from(value)]));
  const context = new KafkaContext([{ headers: received, value: sent.value }, 0, 'orders', {}, async () => {}, {}]);
  const seen = await seenBy(new ServerKafka({ client: { brokers: ['127.0.0.1:9092'] } }), [{}, context]);
  assert.equal(seen.causationId, 'req-sent');
  assert.equal(seen.correlationId, 'chain-sent');
});

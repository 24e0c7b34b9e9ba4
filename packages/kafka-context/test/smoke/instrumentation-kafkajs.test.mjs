// With @opentelemetry/instrumentation-kafkajs registered as an application registers it (require hooks, before
// kafkajs is required; the SDK on AmbientContextManager with the W3C propagator), on the built package, without a
// broker (none can be installed here). The instrumentation's producer patch writes its `traceparent` into
// message.headers inside producer.send, before kafkajs fails for want of a broker: the record carries one, its send
// span's, beside our ids. Its consumer patch wraps eachMessage on the config object given to consumer.run before
// kafkajs tries to connect; that wrapper, called with the record as kafkajs's codec decodes it, runs ours inside its
// consumer span, which stays active in the run, with the producer's request as causation and the same trace.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { freePort } from '../../../../scripts/services.mjs';

const require = createRequire(import.meta.url);
const api = require('@opentelemetry/api');
const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = require('@opentelemetry/sdk-trace-base');
const { W3CTraceContextPropagator } = require('@opentelemetry/core');
const { registerInstrumentations, isWrapped } = require('@opentelemetry/instrumentation');
const { KafkaJsInstrumentation } = require('@opentelemetry/instrumentation-kafkajs');
const { AmbientContextManager } = require('@ambient/opentelemetry-context');

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
api.trace.setGlobalTracerProvider(provider);
api.context.setGlobalContextManager(new AmbientContextManager().enable());
api.propagation.setGlobalPropagator(new W3CTraceContextPropagator());
registerInstrumentations({ instrumentations: [new KafkaJsInstrumentation()] });

const { Kafka, logLevel } = require('kafkajs'); // only now, after the instrumentation's hooks are in place
const { requestContext } = require('@ambient/core');
const { eachMessage, messageHeaders } = require('@ambient/kafka-context');
const { decode, encode, payloadOf } = require('./fixtures/kafkajs-records.cjs');

const tracer = api.trace.getTracer('ambient-kafka-smoke');
const producerKind = api.SpanKind.PRODUCER;
const consumerKind = api.SpanKind.CONSUMER;
const uuidv7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ids = (span) => span && { traceId: span.spanContext().traceId, spanId: span.spanContext().spanId };

test(
  'with instrumentation-kafkajs: one traceparent; ids and spans agree in eachMessage',
  { timeout: 60_000 },
  async () => {
    const topic = `ambient-${randomUUID()}`;
    const kafka = new Kafka({
      brokers: [`127.0.0.1:${await freePort()}`],
      retry: { retries: 0 },
      logLevel: logLevel.NOTHING,
    });
    const producer = kafka.producer();
    assert.ok(isWrapped(producer.send), 'the instrumentation patched the producer');

    const sent = await Promise.all(
      Array.from({ length: 10 }, (_, n) =>
        tracer.startActiveSpan(`request ${n}`, (span) =>
          requestContext.run(
            { requestId: `req-${n}`, ...(n % 3 === 0 ? { correlationId: `chain-${n}` } : {}) },
            async () => {
              await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 5)));
              const message = { value: JSON.stringify({ n }), headers: messageHeaders() };
              const ours = message.headers.traceparent;
              const failure = await producer.send({ topic, messages: [message] }).catch((error) => error);
              span.end();
              return { n, message, ours, failure, request: ids(span) };
            },
          ),
        ),
      ),
    );
    const spans = () => exporter.getFinishedSpans();
    const childOf = (spanId, kind) =>
      spans().filter((span) => span.parentSpanContext?.spanId === spanId && span.kind === kind);

    for (const { n, message, ours, failure, request } of sent) {
      assert.equal(failure?.name, 'KafkaJSError', 'no broker: kafkajs fails the send, after the instrumentation ran');
      const [send, ...more] = childOf(request.spanId, producerKind);
      assert.deepEqual(more, [], `request ${n}: one send span`);
      assert.deepEqual(
        Object.keys(message.headers).filter((key) => /^traceparent$/i.test(key)),
        ['traceparent'],
        'one traceparent header',
      );
      assert.equal(message.headers.traceparent, `00-${request.traceId}-${send.spanContext().spanId}-01`);
      assert.equal(ours, `00-${request.traceId}-${request.spanId}-01`, 'ours named the request span, and was replaced');
      assert.equal(message.headers['x-request-id'], `req-${n}`);
      assert.equal(message.headers['x-correlation-id'], n % 3 === 0 ? `chain-${n}` : `req-${n}`);
    }

    const batch = await decode(topic, 0, await encode(sent.map(({ message }) => message)));
    const handled = new Map();
    const config = {
      eachMessage: eachMessage(async ({ message }) => {
        const seen = { scope: requestContext.snapshot(), active: ids(api.trace.getActiveSpan()) };
        await new Promise((resolve) => setTimeout(resolve, 1));
        seen.afterAwait = { traceId: requestContext.get('traceId'), spanId: requestContext.get('spanId') };
        seen.headers = message.headers;
        handled.set(JSON.parse(String(message.value)).n, seen);
      }),
    };
    const ourHandler = config.eachMessage;
    const consumer = kafka.consumer({ groupId: topic, retry: { retries: 0, restartOnFailure: async () => false } });
    await consumer.run(config); // refused at once: no broker; the instrumentation wrapped config.eachMessage first
    await consumer.disconnect();
    assert.notEqual(config.eachMessage, ourHandler);
    assert.ok(isWrapped(config.eachMessage));
    for (const message of batch.messages) await config.eachMessage(payloadOf(batch, message));

    for (const { n, request, message } of sent) {
      const { scope, active, afterAwait, headers } = handled.get(n);
      assert.ok(
        Object.values(headers).every((value) => Buffer.isBuffer(value)),
        'consumed header values are Buffers',
      );
      const sendSpanId = message.headers.traceparent.split('-')[2];
      const [consumed, ...more] = childOf(sendSpanId, consumerKind);
      assert.deepEqual(more, []);
      assert.equal(consumed.name, `process ${topic}`);
      const consumerSpan = { traceId: request.traceId, spanId: consumed.spanContext().spanId };
      assert.deepEqual(active, consumerSpan, 'the consumer span is active in the handler');
      assert.deepEqual({ traceId: scope.traceId, spanId: scope.spanId }, consumerSpan, 'requestContext reports it');
      assert.deepEqual(afterAwait, consumerSpan, 'and still after an await');
      assert.match(scope.requestId, uuidv7);
      assert.equal(scope.causationId, `req-${n}`);
      assert.equal(scope.correlationId, n % 3 === 0 ? `chain-${n}` : `req-${n}`);
      assert.deepEqual(scope.job, { name: topic, system: 'kafka', queue: topic });
    }
    await provider.shutdown();
  },
);

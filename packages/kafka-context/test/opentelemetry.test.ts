// With @opentelemetry/instrumentation-kafkajs and the SDK registered (BasicTracerProvider on AmbientContextManager,
// the W3C propagator), without a broker: the instrumentation patches kafkajs by its own module definition (what
// require-in-the-middle runs when kafkajs is required; jest's module registry bypasses require hooks, so the same
// runs with real hooks, on the built package, in test/smoke/instrumentation-kafkajs.test.mjs). Its producer patch
// writes `traceparent` into message.headers before kafkajs sends (kafkajs then fails: no broker); the record is
// encoded and decoded by kafkajs's own codec, and handed to the eachMessage/eachBatch that its consumer patch wrapped
// on the config object given to consumer.run (run fails to connect, after wrapping), as kafkajs's Runner calls them.
import { context, propagation, trace, SpanKind, type Span } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { isWrapped } from '@opentelemetry/instrumentation';
import { KafkaJsInstrumentation } from '@opentelemetry/instrumentation-kafkajs';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createServer } from 'node:net';
import { Kafka, logLevel, type EachBatchPayload, type EachMessagePayload, type Message } from 'kafkajs';
import { AmbientContextManager } from '@ambient/opentelemetry-context';
import { requestContext } from '@ambient/core';
import { eachMessage, messageHeaders } from '@ambient/kafka-context';
import { delivered, payloadOf } from './helpers/kafkajs-records.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer('kafka-test');
const instrumentation = new KafkaJsInstrumentation({ enabled: false });
let kafka: Kafka;

beforeAll(async () => {
  context.setGlobalContextManager(new AmbientContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  instrumentation.setTracerProvider(provider);
  for (const definition of instrumentation.getModuleDefinitions()) definition.patch?.({ Kafka }, '2.2.4');
  // A port nothing listens on: the consumer's connection is refused at once.
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  kafka = new Kafka({ brokers: [`127.0.0.1:${port}`], retry: { retries: 0 }, logLevel: logLevel.NOTHING });
});
afterAll(async () => {
  trace.disable();
  context.disable();
  propagation.disable();
  await provider.shutdown();
});

const spans = () => exporter.getFinishedSpans();
const idsOf = (span: Span | undefined) =>
  span && { traceId: span.spanContext().traceId, spanId: span.spanContext().spanId };

/** `producer.send` of one record inside a request (an active span with a requestContext scope). */
async function sendInRequest(topic: string, requestId: string) {
  const producer = kafka.producer();
  return tracer.startActiveSpan(`request ${requestId}`, (span) =>
    requestContext.run({ requestId, correlationId: `chain-${requestId}` }, async () => {
      const message: Message = { value: '{}', headers: messageHeaders({ 'x-tenant': 't1' }) };
      const ours = message.headers!.traceparent;
      const failure: unknown = await producer.send({ topic, messages: [message] }).catch((error: unknown) => error);
      span.end();
      return { message, ours, failure, request: idsOf(span)! };
    }),
  );
}

/** The eachMessage/eachBatch that the instrumentation wrapped on the config given to consumer.run. */
async function instrumented<C extends { eachMessage?: unknown; eachBatch?: unknown }>(config: C): Promise<C> {
  const given = { ...config };
  const consumer = kafka.consumer({
    groupId: 'ambient-test',
    retry: { retries: 0, restartOnFailure: async () => false },
  });
  await consumer.run(config as never);
  await consumer.disconnect();
  for (const key of ['eachMessage', 'eachBatch'] as const) {
    if (given[key] !== undefined) expect(isWrapped(config[key])).toBe(true);
  }
  return config;
}

/** What a handler sees: its scope, the active span, and the parent of a span it starts. */
function observe() {
  const child = tracer.startSpan('handle');
  child.end();
  return {
    scope: requestContext.snapshot(),
    active: idsOf(trace.getActiveSpan()),
    childParent: spans().find((span) => span.spanContext().spanId === child.spanContext().spanId)?.parentSpanContext
      ?.spanId,
  };
}

describe('with @opentelemetry/instrumentation-kafkajs', () => {
  it("producer.send: one traceparent, the instrumentation's send span, beside our ids", async () => {
    const { message, ours, failure, request } = await sendInRequest('orders', 'req-1');
    expect(failure).toMatchObject({ name: 'KafkaJSError' }); // no broker: kafkajs's own error, passed through
    const [send, ...more] = spans().filter(
      (span) => span.kind === SpanKind.PRODUCER && span.parentSpanContext?.spanId === request.spanId,
    );
    expect(more).toEqual([]);
    expect(send?.name).toBe('send orders');
    expect(Object.keys(message.headers!).filter((key) => /^traceparent$/i.test(key))).toEqual(['traceparent']);
    expect(message.headers).toEqual({
      'x-request-id': 'req-1',
      'x-correlation-id': 'chain-req-1',
      traceparent: `00-${request.traceId}-${send!.spanContext().spanId}-01`,
      'x-tenant': 't1',
    });
    // Ours named the request's span; the instrumentation's, written over it, names its send span.
    expect(ours).toBe(`00-${request.traceId}-${request.spanId}-01`);
  });

  it("eachMessage: the instrumentation's consumer span stays active in the run; ids and spans agree", async () => {
    const { message, request } = await sendInRequest('orders', 'req-2');
    const sendSpanId = String(message.headers!.traceparent).split('-')[2];
    const batch = await delivered('orders', [message]);
    const config = await instrumented({ eachMessage: eachMessage(async (_payload: EachMessagePayload) => observe()) });
    // The instrumentation's wrapper, which calls ours inside its consumer span.
    const seen = await config.eachMessage(payloadOf(batch, batch.messages[0]!));
    const consumer = spans().find(
      (span) => span.kind === SpanKind.CONSUMER && span.parentSpanContext?.spanId === sendSpanId,
    );
    expect(consumer?.name).toBe('process orders');
    const consumerSpan = { traceId: request.traceId, spanId: consumer!.spanContext().spanId };
    expect(seen.active).toEqual(consumerSpan);
    expect(seen.childParent).toBe(consumerSpan.spanId);
    expect(seen.scope).toMatchObject({ ...consumerSpan, causationId: 'req-2', correlationId: 'chain-req-2' });
  });

  it("eachBatch: each message's run continues its own trace under its send span; the batch's poll span is not kept", async () => {
    const sent = [await sendInRequest('orders', 'req-3'), await sendInRequest('orders', 'req-4')];
    const batch = await delivered(
      'orders',
      sent.map(({ message }) => message),
    );
    const seen: ReturnType<typeof observe>[] = [];
    const handle = eachMessage(async (_payload: Pick<EachMessagePayload, 'topic' | 'partition' | 'message'>) =>
      seen.push(observe()),
    );
    const config = await instrumented({
      eachBatch: async ({ batch, resolveOffset, heartbeat }: EachBatchPayload) => {
        for (const message of batch.messages) {
          await handle({ topic: batch.topic, partition: batch.partition, message });
          resolveOffset(message.offset);
          await heartbeat();
        }
      },
    });
    const resolved: string[] = [];
    await (config.eachBatch as (payload: object) => Promise<void>)({
      batch,
      resolveOffset: (offset: string) => resolved.push(offset),
      heartbeat: async () => undefined,
    });
    expect(resolved).toEqual(['0', '1']);
    sent.forEach(({ message, request }, n) => {
      const [, traceId, sendSpanId] = String(message.headers!.traceparent).split('-');
      expect(traceId).toBe(request.traceId);
      expect(seen[n]?.scope).toMatchObject({ traceId, spanId: sendSpanId, causationId: `req-${n + 3}` });
      // The instrumentation makes only its poll span (a trace of its own) active around eachBatch, and its
      // per-message spans never: the run enters the send span as a remote parent, so the handler's spans join the
      // message's trace.
      expect(seen[n]?.active).toEqual({ traceId, spanId: sendSpanId });
      expect(seen[n]?.childParent).toBe(sendSpanId);
    });
  });
});

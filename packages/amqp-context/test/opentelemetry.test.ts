// consumeHandler with the real OpenTelemetry SDK registered (BasicTracerProvider on AmbientContextManager), called
// as @opentelemetry/instrumentation-amqplib calls a consume callback: inside context.with(its consumer span).
// The instrumentation itself patches amqplib through require hooks, which jest bypasses: across processes, on
// the real broker, in test/smoke/instrumentation-amqplib.test.mjs.
import { context, trace, ROOT_CONTEXT, type Span } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { AmbientContextManager } from '@ambient/opentelemetry-context';
import { requestContext } from '@ambient/core';
import { consumeHandler, type ConsumeHandlerOptions } from '@ambient/amqp-context';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer('amqp-test');

beforeAll(() => {
  context.setGlobalContextManager(new AmbientContextManager().enable());
  trace.setGlobalTracerProvider(provider);
});
afterAll(async () => {
  trace.disable();
  context.disable();
  await provider.shutdown();
});

const producer = tracer.startSpan('publish q');
producer.end();
const { traceId, spanId: publishSpanId } = producer.spanContext();
const message = (headers: Record<string, unknown>) => ({
  fields: { routingKey: 'q', redelivered: false },
  properties: { headers, messageId: 'm-1' },
});
const carried = { 'x-request-id': 'req-1', traceparent: `00-${traceId}-${publishSpanId}-01` };

/** What the handler sees when `active` is the span active around the consume callback. */
function deliver(active: Span, headers: Record<string, unknown>, options?: ConsumeHandlerOptions) {
  const handler = consumeHandler(() => {
    const child = tracer.startSpan('handle');
    child.end();
    return {
      active: trace.getActiveSpan(),
      traceId: requestContext.get('traceId'),
      spanId: requestContext.get('spanId'),
      childParent: exporter.getFinishedSpans().find((span) => span.spanContext().spanId === child.spanContext().spanId)
        ?.parentSpanContext?.spanId,
    };
  }, options);
  return context.with(trace.setSpan(ROOT_CONTEXT, active), () => handler(message(headers)));
}

describe('consumeHandler with OpenTelemetry', () => {
  it("keeps an instrumentation's consumer span of the message's trace active in the run", () => {
    const consumer = tracer.startSpan('q process', {}, trace.setSpan(ROOT_CONTEXT, producer));
    const seen = deliver(consumer, carried);
    expect(seen.active).toBe(consumer);
    expect(seen).toMatchObject({ traceId, spanId: consumer.spanContext().spanId });
    expect(seen.childParent).toBe(consumer.spanContext().spanId);
  });

  it.each([
    ['a span of another trace (active where the connection was opened)', carried],
    ['a span of the same trace that is no child of the publish (the run that released this message)', carried],
  ])('enters the publish span as a remote parent, never %s', (what, headers) => {
    const other = what.startsWith('a span of another')
      ? tracer.startSpan('request elsewhere', { root: true })
      : tracer.startSpan(
          'previous run',
          {},
          trace.setSpan(ROOT_CONTEXT, tracer.startSpan('q process', {}, trace.setSpan(ROOT_CONTEXT, producer))),
        );
    const seen = deliver(other, headers);
    expect(seen.active).not.toBe(other);
    expect(seen.active?.spanContext()).toEqual({ traceId, spanId: publishSpanId, traceFlags: 1, isRemote: true });
    expect(seen.active?.isRecording()).toBe(false);
    // The handler's own spans join the message's trace, under the publish.
    expect(seen.childParent).toBe(publishSpanId);
    expect(seen).toMatchObject({ traceId, spanId: publishSpanId });
  });

  it.each([
    ['a message with no traceparent', { 'x-request-id': 'req-1' }, undefined],
    ['link: true, which starts a trace of its own', carried, { link: true }],
  ])('keeps no span for %s', (_what, headers, options) => {
    const other = tracer.startSpan('request elsewhere', { root: true });
    const sameTrace = tracer.startSpan('q process', {}, trace.setSpan(ROOT_CONTEXT, producer));
    const seen = deliver(options === undefined ? other : sameTrace, headers, options);
    expect(seen.active).toBeUndefined();
    expect(seen.childParent).toBeUndefined();
    expect(seen.traceId).toBeUndefined();
    expect(seen.spanId).toBeUndefined();
  });
});

// messageHandler with the real OpenTelemetry SDK registered (BasicTracerProvider on AmbientContextManager), called
// inside context.with(a span), as an instrumentation that makes its span of each received message active calls
// it (@opentelemetry/instrumentation-aws-sdk around the messages of a ReceiveMessage): the span stays active in the
// run when it belongs to the message's trace, and only then.
import { context, trace, ROOT_CONTEXT, type Span } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { AmbientContextManager } from '@ambient/opentelemetry-context';
import { requestContext } from '@ambient/core';
import { messageHandler, type MessageHandlerOptions } from '@ambient/sqs-context';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer('sqs-test');

beforeAll(() => {
  context.setGlobalContextManager(new AmbientContextManager().enable());
  trace.setGlobalTracerProvider(provider);
});
afterAll(async () => {
  trace.disable();
  context.disable();
  await provider.shutdown();
});

const producer = tracer.startSpan('mail send');
producer.end();
const { traceId, spanId: sendSpanId } = producer.spanContext();
const string = (value: string) => ({ DataType: 'String', StringValue: value });
const carried = { 'x-request-id': string('req-1'), traceparent: string(`00-${traceId}-${sendSpanId}-01`) };

/** What the handler sees when `active` is the span active around the call. */
function deliver(active: Span, attributes: Record<string, ReturnType<typeof string>>, options?: MessageHandlerOptions) {
  const handler = messageHandler(() => {
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
  const message = { MessageId: 'm-1', MessageAttributes: attributes };
  return context.with(trace.setSpan(ROOT_CONTEXT, active), () => handler(message));
}

describe('messageHandler with OpenTelemetry', () => {
  it("keeps an instrumentation's span of the message's trace active in the run", () => {
    const processing = tracer.startSpan('mail process', {}, trace.setSpan(ROOT_CONTEXT, producer));
    const seen = deliver(processing, carried);
    expect(seen.active).toBe(processing);
    expect(seen).toMatchObject({ traceId, spanId: processing.spanContext().spanId });
    expect(seen.childParent).toBe(processing.spanContext().spanId);
  });

  it('enters the send span as a remote parent where no span of the message is active: the handler joins its trace', () => {
    const other = tracer.startSpan('request elsewhere', { root: true });
    const seen = deliver(other, carried);
    expect(seen.active).not.toBe(other);
    expect(seen.active?.spanContext()).toEqual({ traceId, spanId: sendSpanId, traceFlags: 1, isRemote: true });
    expect(seen.childParent).toBe(sendSpanId);
    expect(seen).toMatchObject({ traceId, spanId: sendSpanId });
  });

  it.each([
    ['a message with no traceparent', { 'x-request-id': string('req-1') }, undefined],
    ['link: true, which starts a trace of its own', carried, { link: true }],
  ])('keeps no span for %s', (_what, attributes, options) => {
    const other = tracer.startSpan('request elsewhere', { root: true });
    const sameTrace = tracer.startSpan('mail process', {}, trace.setSpan(ROOT_CONTEXT, producer));
    const seen = deliver(options === undefined ? other : sameTrace, attributes, options);
    expect(seen.active).toBeUndefined();
    expect(seen.childParent).toBeUndefined();
    expect(seen.traceId).toBeUndefined();
    expect(seen.spanId).toBeUndefined();
  });
});

// bullmqTelemetry() with the real OpenTelemetry SDK registered (BasicTracerProvider on AmbientContextManager),
// driven as BullMQ's trace() drives it; across processes in test/smoke/request-to-worker-otel.test.mjs.
import { context, trace as otelTrace, ROOT_CONTEXT } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { AmbientContextManager } from '@ambient/opentelemetry-context';
import { requestContext } from '@ambient/core';
import { bullmqTelemetry, type BullmqContext } from '@ambient/bullmq-context';
import type { Telemetry } from 'bullmq';

const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const spanId = '00f067aa0ba902b7';
const consumer = 4;
const producer = 3;

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const manager = new AmbientContextManager().enable();

beforeAll(() => {
  context.setGlobalContextManager(manager);
  otelTrace.setGlobalTracerProvider(provider);
});
afterAll(async () => {
  otelTrace.disable();
  context.disable();
  await provider.shutdown();
});
beforeEach(() => exporter.reset());

function run<R>(
  telemetry: Telemetry<BullmqContext>,
  kind: number,
  jobId: string | undefined,
  callback: () => R,
  metadata?: string,
): R {
  const { tracer, contextManager } = telemetry;
  const current = contextManager.active();
  const parent = metadata === undefined ? undefined : contextManager.fromMetadata(current, metadata);
  const span = tracer.startSpan(kind === consumer ? 'process q' : 'add q.send', { kind }, parent);
  span.setAttributes({ 'bullmq.queue.name': 'q' });
  const messageContext = span.setSpanOnContext(kind === consumer && parent !== undefined ? parent : current);
  try {
    return contextManager.with(messageContext, () => {
      if (jobId !== undefined) span.setAttributes({ 'bullmq.job.id': jobId, 'bullmq.job.name': 'send' });
      return callback();
    });
  } finally {
    span.end();
  }
}

const remote = JSON.stringify({ 'x-request-id': 'req-1', traceparent: `00-${traceId}-${spanId}-01` });
const finished = (name: string) => exporter.getFinishedSpans().filter((span) => span.name === name);

describe('bullmqTelemetry() with OpenTelemetry', () => {
  const telemetry = bullmqTelemetry();

  it("a producer span is a real span under the request's, named in the metadata", () => {
    const metadata = otelTrace.getTracer('t').startActiveSpan('server', (server) => {
      const written = requestContext.run({ requestId: 'req-1' }, () =>
        run(telemetry, producer, undefined, () =>
          telemetry.contextManager.getMetadata(telemetry.contextManager.active()),
        ),
      );
      server.end();
      return written;
    });
    expect(metadata).toBeDefined();
    const [add] = finished('add q.send');
    const [server] = finished('server');
    expect(add!.parentSpanContext?.spanId).toBe(server!.spanContext().spanId);
  });

  it("a consumer span continues the producer's trace; the processor's spans and requestContext are under it", () => {
    const seen = run(
      telemetry,
      consumer,
      '42',
      () => {
        const inner = otelTrace.getTracer('t').startSpan('work');
        inner.end();
        return { traceId: requestContext.get('traceId'), spanId: requestContext.get('spanId') };
      },
      remote,
    );
    const [process] = finished('process q');
    const [work] = finished('work');
    expect(process!.spanContext().traceId).toBe(traceId);
    expect(process!.parentSpanContext?.spanId).toBe(spanId);
    expect(process!.attributes).toMatchObject({ 'bullmq.queue.name': 'q', 'bullmq.job.id': '42' });
    expect(work!.parentSpanContext?.spanId).toBe(process!.spanContext().spanId);
    expect(seen).toEqual({ traceId, spanId: process!.spanContext().spanId });
  });

  it('active() returns the same object while the active context is the same, a new one when it changes', () => {
    const { contextManager } = telemetry;
    const outside = contextManager.active();
    expect(contextManager.active()).toBe(outside);
    otelTrace.getTracer('t').startActiveSpan('inner', (span) => {
      const inside = contextManager.active();
      expect(inside).not.toBe(outside);
      expect(contextManager.active()).toBe(inside);
      span.end();
    });
  });

  it("a scheduler's consumer span starts a trace of its own with a link to the producer", () => {
    run(telemetry, consumer, 'repeat:tick:1', () => undefined, remote);
    const [process] = finished('process q');
    expect(process!.spanContext().traceId).not.toBe(traceId);
    expect(process!.parentSpanContext).toBeUndefined();
    expect(process!.links.map((link) => link.context.spanId)).toEqual([spanId]);
  });

  it('a consumer without metadata starts a root span, whatever is active in the worker', () => {
    otelTrace.getTracer('t').startActiveSpan('worker-startup', (startup) => {
      run(telemetry, consumer, '5', () => undefined);
      startup.end();
    });
    const [process] = finished('process q');
    expect(process!.parentSpanContext).toBeUndefined();
    expect(process!.spanContext().traceId).not.toBe(finished('worker-startup')[0]!.spanContext().traceId);
  });

  it('the span active in a run takes what instrumentations do with an active span', () => {
    run(
      telemetry,
      consumer,
      '6',
      () => {
        const active = otelTrace.getSpan(context.active())!;
        expect(active.isRecording()).toBe(true);
        active.setAttribute('user', 'u1').setAttributes({ more: 1 }).addEvent('event').setStatus({ code: 1 });
        active.recordException(new Error('recorded'));
      },
      remote,
    );
    const [process] = finished('process q');
    expect(process!.attributes).toMatchObject({ user: 'u1', more: 1 });
    expect(process!.events.map((event) => event.name)).toEqual(['event', 'exception']);
  });

  it('ending the active span in a run ends the consumer span, once', () => {
    run(telemetry, consumer, '8', () => otelTrace.getSpan(context.active())!.end(), remote);
    expect(finished('process q')).toHaveLength(1);
  });

  it("a worker's background loop runs from the root: no request, no span of whoever started the worker", () => {
    const seen = otelTrace.getTracer('t').startActiveSpan('worker-startup', (startup) =>
      requestContext.run({ requestId: 'startup' }, () => {
        const { contextManager } = telemetry;
        const result = contextManager.with(contextManager.root!(), () => [
          otelTrace.getSpan(context.active()),
          requestContext.get('requestId'),
        ]);
        startup.end();
        return result;
      }),
    );
    expect(seen).toEqual([undefined, undefined]);
  });

  it('a consumer span that BullMQ never names still starts, and ends once', () => {
    const span = telemetry.tracer.startSpan('process q', { kind: consumer });
    span.addEvent('before naming');
    span.recordException(new Error('failed early'));
    span.end();
    span.end();
    expect(finished('process q')).toHaveLength(1);
  });

  it('opentelemetry: false makes no spans, ids only', () => {
    const idsOnly = bullmqTelemetry({ opentelemetry: false });
    const seen = run(idsOnly, consumer, '7', () => requestContext.get('traceId'), remote);
    expect(seen).toBe(traceId);
    expect(exporter.getFinishedSpans()).toEqual([]);
    expect(context.active()).toBe(ROOT_CONTEXT);
  });
});

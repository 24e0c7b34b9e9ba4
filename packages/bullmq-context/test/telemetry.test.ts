// bullmqTelemetry() driven the way BullMQ's trace() drives it (bullmq src/utils/index.ts): startSpan,
// setSpanOnContext, getMetadata, fromMetadata, with. The same paths run against the real Redis in
// worker.test.ts and across processes in test/smoke.
import { AmbientError, requestContext } from '@ambient/core';
import { sharedState, type DiagnosticsProbe } from '@ambient/core/internal';
import { bullmqTelemetry, type BullmqContext } from '@ambient/bullmq-context';
import type { Telemetry } from 'bullmq';

const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const spanId = '00f067aa0ba902b7';
const consumer = 4;
const producer = 3;
const internal = 0;

/** What BullMQ's trace() does for a span of `kind`, with `callback` run inside the context manager's with(). */
function trace<R>(
  telemetry: Telemetry<BullmqContext>,
  kind: number,
  attributes: Record<string, string>,
  callback: (metadata: string) => R,
  metadata?: string,
): R {
  const { tracer, contextManager } = telemetry;
  const current = contextManager.active();
  const parent = metadata === undefined ? undefined : contextManager.fromMetadata(current, metadata);
  const span = tracer.startSpan('process q', { kind }, parent);
  span.setAttributes({ 'bullmq.queue.name': 'q', 'bullmq.queue.operation': 'process' });
  const messageContext = span.setSpanOnContext(kind === consumer && parent !== undefined ? parent : current);
  const outgoing = contextManager.getMetadata(messageContext);
  try {
    return contextManager.with(messageContext, () => {
      span.setAttributes(attributes);
      return callback(outgoing);
    });
  } finally {
    span.end();
  }
}

const job = (id: string, name = 'send') => ({ 'bullmq.job.id': id, 'bullmq.job.name': name });

describe('bullmqTelemetry() without OpenTelemetry', () => {
  const telemetry = bullmqTelemetry();

  it('a producer inside a request writes the request into the metadata', () => {
    const metadata = requestContext.run({ requestId: 'req-1', traceId, spanId }, () =>
      trace(telemetry, producer, {}, (outgoing) => outgoing),
    );
    expect(JSON.parse(metadata)).toEqual({
      'x-request-id': 'req-1',
      'x-correlation-id': 'req-1',
      traceparent: `00-${traceId}-${spanId}-00`,
    });
  });

  it('a consumer runs in a fresh scope: new id, the producer as causation, its trace, the job named', () => {
    const metadata = JSON.stringify({ 'x-request-id': 'req-1', traceparent: `00-${traceId}-${spanId}-01` });
    const seen = requestContext.run({ requestId: 'enclosing' }, () =>
      trace(telemetry, consumer, job('42'), () => requestContext.snapshot(), metadata),
    );
    expect(seen).toMatchObject({
      causationId: 'req-1',
      correlationId: 'req-1',
      traceId,
      job: { name: 'send', id: '42', system: 'bullmq', queue: 'q' },
    });
    expect(seen?.requestId).not.toMatch(/req-1|enclosing/);
  });

  it("a scheduler's run keeps causation but not the producer's trace", () => {
    const metadata = JSON.stringify({ 'x-request-id': 'req-1', traceparent: `00-${traceId}-${spanId}-01` });
    const seen = trace(
      telemetry,
      consumer,
      job('repeat:tick:1700000000000', 'tick'),
      () => requestContext.snapshot(),
      metadata,
    );
    expect(seen).toMatchObject({ causationId: 'req-1', job: { id: 'repeat:tick:1700000000000' } });
    expect(seen?.traceId).toBeUndefined();
  });

  it('a consumer without metadata, or with garbage, starts a fresh chain', () => {
    for (const metadata of [undefined, '{bad', JSON.stringify({ 'x-request-id': '<script>' })]) {
      const seen = trace(telemetry, consumer, job('1'), () => requestContext.snapshot(), metadata);
      expect(seen?.causationId).toBeUndefined();
      expect(seen?.correlationId).toBeUndefined();
    }
  });

  it("inside a run, an internal span's metadata (a retry's) is the run's producer, not the run", () => {
    const metadata = JSON.stringify({ 'x-request-id': 'req-1', 'x-correlation-id': 'chain' });
    const retry = trace(
      telemetry,
      consumer,
      job('7'),
      () => trace(telemetry, internal, {}, (outgoing) => outgoing),
      metadata,
    );
    expect(JSON.parse(retry)).toEqual({ 'x-request-id': 'req-1', 'x-correlation-id': 'chain' });
    // A job added from the run is caused by the run.
    const [added, runId] = trace(
      telemetry,
      consumer,
      job('8'),
      () => [trace(telemetry, producer, {}, (outgoing) => outgoing), requestContext.get('requestId')],
      metadata,
    );
    expect(JSON.parse(added)).toEqual({ 'x-request-id': runId, 'x-correlation-id': 'chain' });
  });

  it('a job added outside any request reads no context: diagnostics hears of no lost read', () => {
    const missed: string[] = [];
    // Where @ambient/diagnostics installs its probe, as it does when it is on.
    const installed = sharedState<{ probe?: DiagnosticsProbe }>('@ambient/diagnostics.probe', () => ({}));
    installed.probe = { missedRead: (context) => missed.push(context), requestOpened: () => {}, boundary: () => {} };
    try {
      expect(trace(telemetry, producer, {}, (outgoing) => outgoing)).toBe('');
      expect(missed).toEqual([]);
    } finally {
      installed.probe = undefined;
    }
  });

  it("root() detaches BullMQ's background loops from whatever started them", () => {
    const { contextManager } = telemetry;
    const seen = requestContext.run({ requestId: 'starting-the-worker' }, () =>
      contextManager.with(contextManager.root!(), () => requestContext.active),
    );
    expect(seen).toBe(false);
  });

  it('with link: true, every run links (no producer trace); a generator makes the run ids', () => {
    const linking = bullmqTelemetry({ link: true, generateRequestId: () => 'run-1' });
    const metadata = JSON.stringify({ 'x-request-id': 'req-1', traceparent: `00-${traceId}-${spanId}-01` });
    const seen = trace(linking, consumer, job('9'), () => requestContext.snapshot(), metadata);
    expect(seen).toMatchObject({ requestId: 'run-1', causationId: 'req-1' });
    expect(seen?.traceId).toBeUndefined();
  });

  it('spans take attributes, events and exceptions without OpenTelemetry', () => {
    const span = telemetry.tracer.startSpan('x', { kind: internal });
    span.setAttribute('a', 1);
    span.addEvent('e', { b: 2 });
    span.recordException(new Error('boom'));
    span.end();
    span.end();
  });

  it.each([
    [{ link: 'sometimes' }],
    [{ opentelemetry: 'yes' }],
    [{ tracerName: '' }],
    [{ generateRequestId: 'uuid' }],
    [{ lnik: true }],
    ['options'],
  ])('refuses bad options with ERR_AMBIENT_BULLMQ_INVALID_OPTION: %p', (options) => {
    let thrown: unknown;
    try {
      bullmqTelemetry(options as never);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AmbientError);
    expect((thrown as AmbientError).code).toBe('ERR_AMBIENT_BULLMQ_INVALID_OPTION');
  });
});

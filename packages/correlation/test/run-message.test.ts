// messageRun and runMessage, the run of one broker message (correlation/internal). The broker packages' tests
// run them with the real OpenTelemetry SDK; here, OpenTelemetry's global registry holds a context manager of a
// few lines, so that what runMessage makes active can be read as it is.
import { requestContext } from '@ambient/core';
import { contextCarrier, type JobRun } from '@ambient/correlation';
import { messageRun, messageRunOptionShape, runMessage, type OtelSpan } from '@ambient/correlation/internal';

const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const parentId = '00f067aa0ba902b7';
const carrier = { 'x-request-id': 'req-1', traceparent: `00-${traceId}-${parentId}-01` };

describe('messageRun(system, options, message)', () => {
  it('takes the options first, then what the message says', () => {
    expect(messageRun('nats', {}, { name: 'orders.created', queue: 'ORDERS', id: 'm-1', attempt: 2, carrier })).toEqual(
      { name: 'orders.created', system: 'nats', queue: 'ORDERS', id: 'm-1', attempt: 2, carrier },
    );
    const generateRequestId = () => 'run-1';
    expect(
      messageRun(
        'nats',
        { name: 'create', queue: 'workers', link: true, generateRequestId },
        { name: 's', queue: 'q', carrier },
      ),
    ).toEqual({ name: 'create', system: 'nats', queue: 'workers', link: true, generateRequestId, carrier });
  });

  it.each([
    ['empty', ''],
    ['longer than 256 characters', 'a'.repeat(257)],
    ['with a line break', 'orders\ncreated'],
    ['with a C1 control character', 'orders\u0085created'],
    ['no text', 42],
  ])('writes no name or queue %s on every line of the run', (_what, value) => {
    expect(messageRun('mqtt', {}, { name: value, queue: value, carrier: undefined })).toEqual({
      name: 'message',
      system: 'mqtt',
      carrier: undefined,
    });
  });

  it('keeps any other text, a topic in any script', () => {
    expect(messageRun('mqtt', {}, { name: 'häuser/温度/🌡', carrier: undefined }).name).toBe('häuser/温度/🌡');
    expect(messageRun('mqtt', {}, { name: 'a'.repeat(256), carrier: undefined }).name).toHaveLength(256);
  });

  it('has the options every consumer wrapper takes', () => {
    expect(Object.keys(messageRunOptionShape).sort()).toEqual(['generateRequestId', 'link', 'name', 'queue']);
  });
});

describe('runMessage(run, fn) with OpenTelemetry registered', () => {
  const kGlobals = Symbol.for('opentelemetry.js.api.1');
  const kSpan = Symbol.for('OpenTelemetry Context Key SPAN');
  // A context as OpenTelemetry's API makes one: immutable, keyed by symbols.
  class Context {
    constructor(readonly values = new Map<symbol, unknown>()) {}
    getValue(key: symbol) {
      return this.values.get(key);
    }
    setValue(key: symbol, value: unknown) {
      return new Context(new Map(this.values).set(key, value));
    }
    deleteValue(key: symbol) {
      const values = new Map(this.values);
      values.delete(key);
      return new Context(values);
    }
  }
  let active = new Context();
  const manager = {
    active: () => active,
    with<R>(context: Context, fn: () => R): R {
      const before = active;
      active = context;
      try {
        return fn();
      } finally {
        active = before;
      }
    },
  };
  beforeAll(() => {
    (globalThis as Record<symbol, unknown>)[kGlobals] = { trace: { getTracer: () => ({}) }, context: manager };
  });
  afterAll(() => {
    delete (globalThis as Record<symbol, unknown>)[kGlobals];
  });

  const spanOf = (context: { traceId: string; spanId: string }, parent?: string) => ({
    spanContext: () => ({ ...context, traceFlags: 1 }),
    parentSpanContext: parent === undefined ? undefined : { spanId: parent },
  });
  const activeInRun = (span: unknown, run: JobRun = { name: 'm', system: 'test', carrier }) =>
    manager.with(active.setValue(kSpan, span), () => runMessage({ ...run }, () => active.getValue(kSpan) as OtelSpan));

  it('keeps the consumer span an instrumentation made for the message: a child of the span its traceparent names', () => {
    const consumer = spanOf({ traceId, spanId: 'a'.repeat(16) }, parentId);
    expect(activeInRun(consumer)).toBe(consumer);
    const sdk1 = { spanContext: consumer.spanContext, parentSpanId: parentId };
    expect(activeInRun(sdk1)).toBe(sdk1);
  });

  it.each([
    ['a span of another trace', spanOf({ traceId: 'f'.repeat(32), spanId: 'a'.repeat(16) }, parentId)],
    [
      'a span of the same trace with another parent (the run that released this one)',
      spanOf({ traceId, spanId: 'b'.repeat(16) }, 'c'.repeat(16)),
    ],
    ['no span', undefined],
    ['something else under the span key', { spanContext: 'not a function' }],
  ])('enters the publisher span as a remote, non-recording parent instead of %s', (_what, span) => {
    const entered = activeInRun(span);
    expect(entered).not.toBe(span);
    expect(entered.spanContext()).toEqual({ traceId, spanId: parentId, traceFlags: 1, isRemote: true });
    expect(entered.isRecording()).toBe(false);
    // Whatever an application does with it, it records nothing.
    expect(entered.setAttribute('k', 'v').setAttributes({}).addEvent('e').setStatus({ code: 2 })).toBe(entered);
    expect(entered.recordException(new Error('x'))).toBeUndefined();
    expect(entered.end()).toBeUndefined();
  });

  it('enters no span for a message with no trace, or a run with link', () => {
    const other = spanOf({ traceId: 'f'.repeat(32), spanId: 'a'.repeat(16) });
    expect(activeInRun(other, { name: 'm', system: 'test', carrier: { 'x-request-id': 'req-1' } })).toBe(other);
    expect(activeInRun(other, { name: 'm', system: 'test', carrier, link: true })).toBe(other);
  });

  it('opens the run from the root, with the message as causation', () => {
    const seen = requestContext.run({ requestId: 'enclosing' }, () =>
      runMessage(
        { name: 'm', system: 'test', carrier: requestContext.run({ requestId: 'req-2' }, contextCarrier) },
        () => requestContext.snapshot(),
      ),
    );
    expect(seen).toMatchObject({ causationId: 'req-2', correlationId: 'req-2', job: { name: 'm', system: 'test' } });
    expect(seen?.requestId).not.toBe('enclosing');
  });
});

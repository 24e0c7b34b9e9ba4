// The one carrier every transport uses: contextCarrier() writes it, readCarrier() reads it by the HTTP rules.
import { requestContext } from '@ambient/core';
import { setTraceSource, type ActiveTrace } from '@ambient/core/internal';
import { contextCarrier, readCarrier, runJob } from '@ambient/correlation';

/** Makes requestContext report `trace` as the active span until the returned function is called. */
function setTraceSourceForTest(trace: ActiveTrace): () => void {
  setTraceSource(() => trace);
  return () => setTraceSource(undefined);
}

const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const spanId = '00f067aa0ba902b7';
const traceparent = `00-${traceId}-${spanId}-01`;

describe('contextCarrier()', () => {
  it('is {} outside any scope', () => {
    expect(contextCarrier()).toEqual({});
  });

  it('carries the request id, the correlation id (the request id where none) and the trace', () => {
    expect(requestContext.run({ requestId: 'req-1' }, contextCarrier)).toEqual({
      'x-request-id': 'req-1',
      'x-correlation-id': 'req-1',
    });
    const values = {
      requestId: 'req-2',
      correlationId: 'chain-1',
      traceId,
      spanId,
      traceFlags: '01',
      traceState: 'a=1',
    };
    expect(requestContext.run(values, contextCarrier)).toEqual({
      'x-request-id': 'req-2',
      'x-correlation-id': 'chain-1',
      traceparent,
      tracestate: 'a=1',
    });
  });

  it("carries the tracer's active span when one reports it", () => {
    const restore = setTraceSourceForTest({ traceId, spanId: 'aaaaaaaaaaaaaaaa' });
    try {
      expect(requestContext.run({ requestId: 'r' }, contextCarrier).traceparent).toBe(
        `00-${traceId}-aaaaaaaaaaaaaaaa-00`,
      );
    } finally {
      restore();
    }
  });
});

describe('readCarrier(carrier)', () => {
  it('reads what contextCarrier wrote', () => {
    const carrier = requestContext.run(
      { requestId: 'req-1', correlationId: 'chain', traceId, spanId, traceFlags: '01', traceState: 'vendor=x' },
      contextCarrier,
    );
    expect(readCarrier(carrier)).toEqual({
      causationId: 'req-1',
      correlationId: 'chain',
      traceParent: { traceId, parentId: spanId, traceFlags: '01' },
      traceState: 'vendor=x',
    });
  });

  it.each([undefined, null, 42, 'x-request-id', ['req'], () => ({ 'x-request-id': 'r' })])(
    'gives {} for a carrier that is no plain object: %p',
    (carrier) => {
      expect(readCarrier(carrier)).toEqual({});
    },
  );

  it.each([
    ['markup', '<script>alert(1)</script>'],
    ['a newline (log injection)', 'id\nlevel=error'],
    ['too long', 'a'.repeat(129)],
    ['empty', ''],
    ['not a string', 42],
    ['an object', { toString: () => 'req' }],
  ])('drops an x-request-id that is %s, and keeps the valid fields beside it', (_what, value) => {
    expect(readCarrier({ 'x-request-id': value, 'x-correlation-id': 'ok-1', traceparent })).toEqual({
      correlationId: 'ok-1',
      traceParent: { traceId, parentId: spanId, traceFlags: '01' },
    });
  });

  it('drops a bad traceparent and the tracestate with it; drops a bad tracestate alone', () => {
    expect(readCarrier({ traceparent: 'garbage', tracestate: 'a=1' })).toEqual({});
    expect(readCarrier({ traceparent: `00-${'0'.repeat(32)}-${spanId}-01` })).toEqual({});
    expect(readCarrier({ traceparent, tracestate: 'UPPER=1' })).toEqual({
      traceParent: { traceId, parentId: spanId, traceFlags: '01' },
    });
  });

  it('reads bytes (Kafka, some AMQP clients) as text, and survives hostile objects', () => {
    expect(readCarrier({ 'x-request-id': Buffer.from('from-bytes') })).toEqual({ causationId: 'from-bytes' });
    const hostile = Object.defineProperty({}, 'x-request-id', {
      enumerable: true,
      get() {
        throw new Error('getter');
      },
    });
    expect(readCarrier(hostile)).toEqual({});
    expect(readCarrier(Object.create({ 'x-request-id': 'inherited' }))).toEqual({});
    expect(readCarrier(Object.assign(Object.create(null), { 'x-request-id': 'null-prototype' }))).toEqual({
      causationId: 'null-prototype',
    });
  });

  it('drops only the field whose getter or proxy trap throws, and never reads an inherited one', () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const throwing = {
      enumerable: true,
      get: (): never => {
        throw new Error('getter');
      },
    };
    const mixed = Object.defineProperty({ 'x-request-id': 'kept', traceparent }, 'x-correlation-id', throwing);
    Object.defineProperty(mixed, 'tracestate', throwing);
    expect(readCarrier(mixed)).toEqual({
      causationId: 'kept',
      traceParent: { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', parentId: '00f067aa0ba902b7', traceFlags: '01' },
    });
    let inheritedReads = 0;
    const prototype = Object.defineProperty({}, 'x-correlation-id', {
      get: () => {
        inheritedReads++;
        throw new Error('inherited getter');
      },
    });
    expect(readCarrier(Object.assign(Object.create(prototype), { 'x-request-id': 'own' }))).toEqual({
      causationId: 'own',
    });
    expect(inheritedReads).toBe(0);
    const trapThrows = new Proxy(
      { 'x-request-id': 'behind-a-proxy' },
      {
        getOwnPropertyDescriptor: () => {
          throw new Error('trap');
        },
      },
    );
    expect(readCarrier(trapThrows)).toEqual({});
    class HostileBytes extends Uint8Array {
      override get buffer(): ArrayBuffer {
        throw new Error('buffer');
      }
    }
    expect(readCarrier({ 'x-request-id': new HostileBytes(4), 'x-correlation-id': 'still-read' })).toEqual({
      correlationId: 'still-read',
    });
  });

  it("takes a correlation id that repeats a valid request id, and never lets one pass on a bad one's back", () => {
    const id = '0190f5a2-7c3e-7d41-8f1a-3b2c4d5e6f70';
    expect(readCarrier({ 'x-request-id': id, 'x-correlation-id': id })).toEqual({
      causationId: id,
      correlationId: id,
    });
    expect(readCarrier({ 'x-request-id': 'a b', 'x-correlation-id': 'a b' })).toEqual({});
    // A validator of the user's own sees both ids: only the default rule's result is known to repeat.
    const seen: string[] = [];
    readCarrier({ 'x-request-id': id, 'x-correlation-id': id }, (value) => seen.push(value) > 0);
    expect(seen).toEqual([id, id]);
  });

  it('takes a validator of its own, and a throwing validator rejects the id', () => {
    expect(readCarrier({ 'x-request-id': 'has space' }, (id) => id.length < 20)).toEqual({ causationId: 'has space' });
    expect(
      readCarrier({ 'x-request-id': 'r' }, () => {
        throw new Error('validator');
      }),
    ).toEqual({});
  });

  it('the job side sees the same thing: runJob reads the carrier through it', () => {
    expect(runJob({ name: 'j', carrier: { 'x-request-id': '<bad>' } }, () => requestContext.get('causationId'))).toBe(
      undefined,
    );
  });
});

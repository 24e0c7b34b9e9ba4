// The metadata a job carries: written from the current scope, read back from anything.
import { requestContext } from '@ambient/core';
import { contextCarrier } from '@ambient/correlation';
import { carrierOf, metadataForNewJob, metadataForRetry, readMetadata } from '../src/metadata.js';

const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const spanId = '00f067aa0ba902b7';

describe('job metadata', () => {
  it('is the JSON of the carrier inside a request, and empty (no metadata) outside any', () => {
    expect(metadataForNewJob(undefined)).toBe('');
    const metadata = requestContext.run({ requestId: 'req-1', traceId, spanId, traceFlags: '01' }, () =>
      metadataForNewJob(undefined),
    );
    expect(JSON.parse(metadata)).toEqual(
      requestContext.run({ requestId: 'req-1', traceId, spanId, traceFlags: '01' }, contextCarrier),
    );
  });

  it("names the producer span as the traceparent's parent when there is one", () => {
    const metadata = requestContext.run({ requestId: 'req-1' }, () =>
      metadataForNewJob({ traceId, spanId: 'aaaaaaaaaaaaaaaa', traceFlags: 1 }),
    );
    expect(JSON.parse(metadata)).toMatchObject({ traceparent: `00-${traceId}-aaaaaaaaaaaaaaaa-01` });
    expect(JSON.parse(metadataForNewJob({ traceId, spanId, traceFlags: 0 }))).toEqual({
      traceparent: `00-${traceId}-${spanId}-00`,
    });
  });

  it('reads back what it wrote, and what bullmq-otel writes (a W3C carrier)', () => {
    const metadata = requestContext.run({ requestId: 'req-1', correlationId: 'chain' }, () =>
      metadataForNewJob(undefined),
    );
    expect(readMetadata(metadata).fields).toEqual({ causationId: 'req-1', correlationId: 'chain' });
    expect(readMetadata(JSON.stringify({ traceparent: `00-${traceId}-${spanId}-01` })).fields).toEqual({
      traceParent: { traceId, parentId: spanId, traceFlags: '01' },
    });
  });

  it.each([
    ['not a string', 42],
    ['empty', ''],
    ['not JSON', '{not json'],
    ['JSON that is no object', '"x-request-id"'],
    ['an array', '["x-request-id"]'],
    ['null', 'null'],
    ['too long', JSON.stringify({ 'x-request-id': 'r', pad: 'x'.repeat(5000) })],
    ['fields that fail their checks', JSON.stringify({ 'x-request-id': '<b>', traceparent: 'nope' })],
  ])('reads metadata that is %s as no metadata at all', (_what, metadata) => {
    expect(readMetadata(metadata)).toEqual({ fields: {} });
  });

  it("for a retry, passes on the run's producer, never the run itself", () => {
    const inbound = readMetadata(
      JSON.stringify({
        'x-request-id': 'req-1',
        'x-correlation-id': 'c',
        traceparent: `00-${traceId}-${spanId}-01`,
        tracestate: 'a=1',
      }),
    );
    expect(JSON.parse(metadataForRetry(inbound))).toEqual({
      'x-request-id': 'req-1',
      'x-correlation-id': 'c',
      traceparent: `00-${traceId}-${spanId}-01`,
      tracestate: 'a=1',
    });
    expect(metadataForRetry({ fields: {} })).toBe('');
    expect(carrierOf({})).toEqual({});
  });
});

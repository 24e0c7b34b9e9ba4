import { createContext, requestContext } from '@ambient/core';
import {
  captureRequestScopeWith,
  runInCapturedContext,
  setTraceSource,
  type ActiveTrace,
} from '@ambient/core/internal';

describe('setTraceSource: requestContext reports the active span', () => {
  let active: ActiveTrace | undefined;
  beforeEach(() => setTraceSource(() => active));
  afterEach(() => {
    setTraceSource(undefined);
    active = undefined;
  });

  it("reports the source's span inside a request, the scope's own ids where no span is active", () => {
    requestContext.run({ requestId: 'r', traceId: 'incoming-trace', spanId: 'incoming-parent' }, () => {
      expect([requestContext.get('traceId'), requestContext.get('spanId')]).toEqual([
        'incoming-trace',
        'incoming-parent',
      ]);
      active = { traceId: 'span-trace', spanId: 'span-id' };
      expect([requestContext.get('traceId'), requestContext.get('spanId')]).toEqual(['span-trace', 'span-id']);
      expect(requestContext.require('spanId')).toBe('span-id');
      expect(requestContext.has('traceId')).toBe(true);
      expect(requestContext.snapshot()).toEqual({ requestId: 'r', traceId: 'span-trace', spanId: 'span-id' });
      expect(requestContext.get('requestId')).toBe('r');
    });
  });

  it('fills in ids a request without traceparent lacks, and never writes them into the scope', () => {
    requestContext.run({ requestId: 'r' }, () => {
      active = { traceId: 't', spanId: 's' };
      expect(requestContext.require('traceId')).toBe('t');
      active = undefined;
      expect(requestContext.get('traceId')).toBeUndefined();
      expect(() => requestContext.require('traceId')).toThrow(
        expect.objectContaining({ code: 'ERR_AMBIENT_MISSING_VALUE' }),
      );
    });
  });

  it("reports the active span's trace flags, so a carrier from a sampled span says sampled", () => {
    requestContext.run({ requestId: 'r', traceFlags: '00' }, () => {
      active = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: 1 };
      expect(requestContext.get('traceFlags')).toBe('01');
      expect(requestContext.snapshot()).toMatchObject({ traceFlags: '01' });
      // A source that gives no usable flags leaves the scope's own.
      for (const traceFlags of [undefined, 256, -1, 1.5]) {
        active = { traceId: 't', spanId: 's', ...(traceFlags === undefined ? {} : { traceFlags }) };
        expect(requestContext.get('traceFlags')).toBe('00');
      }
    });
    requestContext.run({ requestId: 'r' }, () => {
      active = { traceId: 't', spanId: 's' };
      expect(requestContext.snapshot()).toEqual({ requestId: 'r', traceId: 't', spanId: 's' });
    });
  });

  it('reports nothing outside a request, span or not', () => {
    active = { traceId: 't', spanId: 's' };
    expect(requestContext.get('traceId')).toBeUndefined();
    expect(requestContext.snapshot()).toBeUndefined();
  });

  it('stops when unregistered', () => {
    active = { traceId: 't', spanId: 's' };
    setTraceSource(undefined);
    requestContext.run({ requestId: 'r', traceId: 'own' }, () => expect(requestContext.get('traceId')).toBe('own'));
  });
});

describe('captureRequestScopeWith: a child of the request scope, for a traced call', () => {
  const operation = { name: 'GetUser', type: 'query' } as const;

  it('adds values to a copy of the scope, leaving the request scope as it was', () => {
    requestContext.run({ requestId: 'r', traceId: 't' }, () => {
      const captured = captureRequestScopeWith({ operation });
      expect(requestContext.get('operation')).toBeUndefined();
      runInCapturedContext(captured, () => {
        expect(requestContext.snapshot()).toEqual({ requestId: 'r', traceId: 't', operation });
        requestContext.set('causationId', 'inside');
      });
      expect(requestContext.snapshot()).toEqual({ requestId: 'r', traceId: 't' });
    });
  });

  it('keeps the other contexts and variables current where it was captured', () => {
    const tenant = createContext<{ tenant: string }>({ name: 'tenants' });
    tenant.run({ tenant: 'acme' }, () =>
      requestContext.run({ requestId: 'r' }, () => {
        const captured = captureRequestScopeWith({ operation });
        runInCapturedContext(captured, () => {
          expect(tenant.get('tenant')).toBe('acme');
          // Null-prototyped like every scope: "toString" is no inherited value.
          expect(requestContext.get('toString' as never)).toBeUndefined();
        });
      }),
    );
  });

  it('captures nothing outside any request scope', () => {
    expect(captureRequestScopeWith({ operation })).toBeUndefined();
  });
});

import http from 'node:http';
import { send } from '@ambient/conformance';
import { httpContext, requestContext, type HttpContextOptions } from '@ambient/http-context';
import { close, listen } from './helpers/server.js';

type Listener = Parameters<typeof httpContext>[0];

async function withServer(
  listener: Listener,
  options: HttpContextOptions | undefined,
  body: (port: number) => Promise<void>,
): Promise<void> {
  const server = http.createServer(httpContext(listener, options));
  const port = await listen(server);
  try {
    await body(port);
  } finally {
    await close(server);
  }
}

const answerId: Listener = (_req, res) => res.end(JSON.stringify(requestContext.snapshot()));

describe('httpContext request-id policy', () => {
  it('trusts no incoming id with requestIdHeader: false, and still echoes a generated one', async () => {
    await withServer(answerId, { requestIdHeader: false }, async (port) => {
      const response = await send(port, { path: '/', headers: { 'x-request-id': 'from-client' } });
      expect(response.headers['x-request-id']).not.toBe('from-client');
      expect((response.json as { requestId: string }).requestId).toBe(response.headers['x-request-id']);
    });
  });

  it('reads the headers it knows whatever their case, and no other header of the same length', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parentId = '00f067aa0ba902b7';
    await withServer(answerId, undefined, async (port) => {
      const capitalized = await send(port, {
        path: '/',
        headers: {
          'X-REQUEST-ID': 'upper-id',
          'X-Correlation-Id': 'chain-1',
          TraceParent: `00-${traceId}-${parentId}-01`,
          Tracestate: 'vendor=abc',
          Connection: 'keep-alive',
        },
      });
      expect(capitalized.json).toEqual({
        requestId: 'upper-id',
        correlationId: 'chain-1',
        traceId,
        spanId: parentId,
        traceFlags: '01',
        traceState: 'vendor=abc',
      });
      // As long as x-request-id, x-correlation-id, traceparent and tracestate, with their first letter or not.
      const lookalikes = await send(port, {
        path: '/',
        headers: {
          'X-Request-Ix': 'not-the-id',
          'y-request-id': 'not-the-id-either',
          'X-Correlation-Ix': 'not-the-chain',
          Traceparens: `00-${traceId}-${parentId}-01`,
          Uracestate: 'vendor=abc',
        },
      });
      expect(Object.keys(lookalikes.json as object)).toEqual(['requestId']);
      expect((lookalikes.json as { requestId: string }).requestId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    });
  });

  it('reads and echoes a custom header, echoes under another name, or not at all', async () => {
    await withServer(answerId, { requestIdHeader: 'X-Correlation-Id' }, async (port) => {
      const response = await send(port, { path: '/', headers: { 'x-correlation-id': 'corr-1' } });
      expect(response.headers['x-correlation-id']).toBe('corr-1');
    });
    await withServer(answerId, { echoRequestId: 'request-id' }, async (port) => {
      const response = await send(port, { path: '/', headers: { 'x-request-id': 'abc' } });
      expect([response.headers['request-id'], response.headers['x-request-id']]).toEqual(['abc', undefined]);
    });
    await withServer(answerId, { echoRequestId: false }, async (port) => {
      const response = await send(port, { path: '/', headers: { 'x-request-id': 'abc' } });
      expect(response.headers['x-request-id']).toBeUndefined();
      expect((response.json as { requestId: string }).requestId).toBe('abc');
    });
  });

  it('uses a custom validator and generator', async () => {
    let next = 0;
    const options: HttpContextOptions = {
      validateRequestId: (id) => /^req-\d+$/.test(id),
      generateRequestId: () => `gen-${++next}`,
    };
    await withServer(answerId, options, async (port) => {
      expect((await send(port, { path: '/', headers: { 'x-request-id': 'req-7' } })).headers['x-request-id']).toBe(
        'req-7',
      );
      expect((await send(port, { path: '/', headers: { 'x-request-id': 'abc' } })).headers['x-request-id']).toBe(
        'gen-1',
      );
    });
  });

  it('falls back to a UUIDv7, with one warning, when the generator returns no usable id', async () => {
    const emitWarning = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      await withServer(answerId, { generateRequestId: () => '' }, async (port) => {
        for (let i = 0; i < 3; i++) {
          const id = (await send(port, { path: '/' })).headers['x-request-id'];
          expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
        }
      });
      expect(emitWarning).toHaveBeenCalledTimes(1);
      expect(emitWarning.mock.calls[0]?.[1]).toEqual({
        type: 'AmbientWarning',
        code: 'WARN_AMBIENT_HTTP_BAD_GENERATED_ID',
      });
    } finally {
      emitWarning.mockRestore();
    }
  });

  it('keeps the trace context out with traceContext: false', async () => {
    await withServer(answerId, { traceContext: false }, async (port) => {
      const response = await send(port, {
        path: '/',
        headers: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
      });
      expect(response.json).toEqual({ requestId: response.headers['x-request-id'] });
    });
  });
});

describe('httpContext error path', () => {
  it('calls onError inside the request scope for a synchronous throw and for a rejection', async () => {
    const seen: unknown[] = [];
    const listener: Listener = (req) => {
      if (req.url === '/sync') throw new Error('sync');
      return Promise.reject(new Error('async'));
    };
    const onError: HttpContextOptions['onError'] = (error, _req, res) => {
      seen.push([(error as Error).message, requestContext.get('requestId')]);
      res.statusCode = 503;
      res.end();
    };
    await withServer(listener, { onError }, async (port) => {
      const sync = await send(port, { path: '/sync', headers: { 'x-request-id': 'r-sync' } });
      const rejected = await send(port, { path: '/async', headers: { 'x-request-id': 'r-async' } });
      expect([sync.status, rejected.status]).toEqual([503, 503]);
    });
    expect(seen).toEqual([
      ['sync', 'r-sync'],
      ['async', 'r-async'],
    ]);
  });

  it('by default logs the error with the request id, answers 500, and keeps serving', async () => {
    const logged: unknown[][] = [];
    const spy = jest.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void logged.push(args));
    try {
      const listener: Listener = (req, res) => {
        if (req.url === '/fail') throw new Error('boom');
        res.end('fine');
      };
      await withServer(listener, undefined, async (port) => {
        const failed = await send(port, { path: '/fail', headers: { 'x-request-id': 'r-fail' } });
        expect([failed.status, failed.headers['x-request-id']]).toEqual([500, 'r-fail']);
        expect((await send(port, { path: '/' })).text).toBe('fine');
      });
      expect(String(logged[0]?.[0])).toContain('r-fail');
      expect((logged[0]?.[1] as Error).message).toBe('boom');
    } finally {
      spy.mockRestore();
    }
  });

  it('an onError that throws still gets the response answered', async () => {
    const spy = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const listener: Listener = () => {
        throw new Error('first');
      };
      await withServer(
        listener,
        {
          onError: () => {
            throw new Error('second');
          },
        },
        async (port) => {
          expect((await send(port, { path: '/' })).status).toBe(500);
        },
      );
    } finally {
      spy.mockRestore();
    }
  });
});

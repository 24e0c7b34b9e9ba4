import http from 'node:http';
import { send } from '@ambient/conformance';
import { runJob } from '@ambient/correlation';
import { httpContext, outgoingPropagation, requestContext, type HttpContextOptions } from '@ambient/http-context';
import { close, listen } from './helpers/server.js';

/**
 * Two real services on 127.0.0.1: A handles a request and calls B with fetch, http.request or http.get.
 * B's own httpContext scope shows what reached it.
 */
const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const spanId = '00f067aa0ba902b7';

let serviceB: http.Server;
let portB: number;
let lastSeenByB: Record<string, unknown> | undefined;
/** Read through a function: TypeScript would otherwise keep lastSeenByB narrowed to undefined across awaits. */
const seenByB = (): Record<string, unknown> | undefined => lastSeenByB;

beforeAll(async () => {
  serviceB = http.createServer(
    httpContext((req, res) => {
      lastSeenByB = {
        context: requestContext.snapshot(),
        headers: {
          id: req.headers['x-request-id'],
          correlation: req.headers['x-correlation-id'],
          traceparent: req.headers.traceparent,
        },
      };
      res.end('ok');
    }),
  );
  portB = await listen(serviceB);
});
afterAll(() => close(serviceB));

type Caller = (url: string, headers?: Record<string, string>) => Promise<void>;

const callers: Record<string, Caller> = {
  fetch: async (url, headers) => {
    await (await fetch(url, { headers })).text();
  },
  'http.request': (url, headers) =>
    new Promise((resolve, reject) => {
      const request = http.request(url, { headers }, (response) => response.resume().on('end', resolve));
      request.on('error', reject);
      request.end();
    }),
  'http.get': (url, headers) =>
    new Promise((resolve, reject) => {
      http.get(url, { headers }, (response) => response.resume().on('end', resolve)).on('error', reject);
    }),
};

async function callThroughA(
  options: HttpContextOptions,
  caller: Caller,
  target: string,
  headers?: Record<string, string>,
  incoming: Record<string, string> = {},
): Promise<void> {
  const serviceA = http.createServer(
    httpContext(async (_req, res) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      await caller(target, headers);
      res.end('done');
    }, options),
  );
  const portA = await listen(serviceA);
  try {
    lastSeenByB = undefined;
    const response = await send(portA, {
      path: '/',
      headers: { 'x-request-id': 'request-of-A', traceparent: `00-${traceId}-${spanId}-01`, ...incoming },
    });
    expect(response.status).toBe(200);
  } finally {
    await close(serviceA);
  }
}

describe.each(Object.keys(callers))('outgoing propagation with %s', (name) => {
  const caller = callers[name]!;
  const allowB = () => ({ propagation: { allowedOrigins: [`http://127.0.0.1:${portB}`] } });

  it("carries A's request id and traceparent to an allowed origin: B's context shows A's request id", async () => {
    await callThroughA(allowB(), caller, `http://127.0.0.1:${portB}/`);
    expect(lastSeenByB).toEqual({
      // A had no correlation id: the chain starts at A, so A's request id is sent as the correlation id.
      context: { requestId: 'request-of-A', correlationId: 'request-of-A', traceId, spanId, traceFlags: '01' },
      headers: { id: 'request-of-A', correlation: 'request-of-A', traceparent: `00-${traceId}-${spanId}-01` },
    });
  });

  it('passes on the correlation id A received, and a valid tracestate; drops a bad correlation id', async () => {
    await callThroughA(allowB(), caller, `http://127.0.0.1:${portB}/`, undefined, {
      'x-correlation-id': 'chain-7',
      tracestate: 'vendor=abc',
    });
    expect(seenByB()?.context).toMatchObject({ correlationId: 'chain-7', traceState: 'vendor=abc' });
    await callThroughA(allowB(), caller, `http://127.0.0.1:${portB}/`, undefined, {
      'x-correlation-id': '<script>',
      tracestate: 'Bad Key=1',
    });
    expect(seenByB()?.context).toMatchObject({ correlationId: 'request-of-A' });
    expect(seenByB()?.context).not.toHaveProperty('traceState');
    // correlationId: false ignores an incoming one: the chain starts again at A.
    await callThroughA({ ...allowB(), correlationId: false }, caller, `http://127.0.0.1:${portB}/`, undefined, {
      'x-correlation-id': 'chain-8',
    });
    expect(seenByB()?.context).toMatchObject({ correlationId: 'request-of-A' });
  });

  it('sends nothing to an origin off the allow-list, nor without the option', async () => {
    await callThroughA(
      { propagation: { allowedOrigins: ['http://127.0.0.1:1'] } },
      caller,
      `http://127.0.0.1:${portB}/`,
    );
    expect(lastSeenByB?.headers).toEqual({ id: undefined, correlation: undefined, traceparent: undefined });
    await callThroughA({}, caller, `http://127.0.0.1:${portB}/`);
    expect(lastSeenByB?.headers).toEqual({ id: undefined, correlation: undefined, traceparent: undefined });
  });

  it('leaves a header the caller set itself alone', async () => {
    await callThroughA(allowB(), caller, `http://127.0.0.1:${portB}/`, { 'x-request-id': 'chosen-by-the-caller' });
    expect((lastSeenByB?.headers as { id: unknown }).id).toBe('chosen-by-the-caller');
  });

  it('sends nothing for a call made outside any request', async () => {
    await callThroughA(allowB(), async () => undefined, `http://127.0.0.1:${portB}/`);
    lastSeenByB = undefined;
    await caller(`http://127.0.0.1:${portB}/`);
    expect(seenByB()?.headers).toEqual({ id: undefined, correlation: undefined, traceparent: undefined });
  });
});

describe.each(Object.keys(callers))('outgoingPropagation(options): calls made in a job run, with %s', (name) => {
  const caller = callers[name]!;
  const b = () => `http://127.0.0.1:${portB}/`;
  const carrier = {
    'x-request-id': 'request-that-enqueued',
    'x-correlation-id': 'chain-9',
    traceparent: `00-${traceId}-${spanId}-01`,
  };
  const headersNone = { id: undefined, correlation: undefined, traceparent: undefined };

  /** A job's run calls B; what the run itself saw is returned beside what reached B. */
  async function callFromJob(): Promise<{ run: Record<string, unknown> | undefined; atB: unknown }> {
    lastSeenByB = undefined;
    const run = await runJob({ name: 'sync', carrier }, async () => {
      await caller(b());
      return requestContext.snapshot();
    });
    return { run, atB: seenByB()?.headers };
  }

  it("carries the run's own id, the chain's correlation id and the trace to an allowed origin", async () => {
    const propagation = outgoingPropagation({ allowedOrigins: [`http://127.0.0.1:${portB}`] });
    try {
      const { run, atB } = await callFromJob();
      // B's causation is this run, not the request that enqueued it; the chain and the trace go on.
      expect(run?.['causationId']).toBe('request-that-enqueued');
      expect(atB).toEqual({
        id: run?.['requestId'],
        correlation: 'chain-9',
        traceparent: expect.stringMatching(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`)) as unknown,
      });
    } finally {
      propagation.dispose();
    }
  });

  it('sends nothing without it, to an origin off its list, after dispose(), or outside any scope', async () => {
    expect((await callFromJob()).atB).toEqual(headersNone);
    const elsewhere = outgoingPropagation({ allowedOrigins: ['http://127.0.0.1:1'] });
    try {
      expect((await callFromJob()).atB).toEqual(headersNone);
    } finally {
      elsewhere.dispose();
    }
    const disposed = outgoingPropagation({ allowedOrigins: () => true });
    disposed.dispose();
    expect((await callFromJob()).atB).toEqual(headersNone);
    const everywhere = outgoingPropagation({ allowedOrigins: () => true });
    try {
      lastSeenByB = undefined;
      await caller(b());
      expect(seenByB()?.headers).toEqual(headersNone);
    } finally {
      everywhere.dispose();
    }
  });

  it("leaves a server's requests to the server's own policy; a server with none uses the process's", async () => {
    const everywhere = outgoingPropagation({ allowedOrigins: () => true });
    try {
      // A's server allows only another origin: its request sends nothing to B, whatever the process allows.
      await callThroughA({ propagation: { allowedOrigins: ['http://127.0.0.1:1'] } }, caller, b());
      expect(seenByB()?.headers).toEqual(headersNone);
      await callThroughA({}, caller, b());
      expect(seenByB()?.headers).toMatchObject({ id: 'request-of-A', correlation: 'request-of-A' });
    } finally {
      everywhere.dispose();
    }
  });

  it('a later call replaces the policy; disposing the replaced one leaves the later one in force', async () => {
    const first = outgoingPropagation({ allowedOrigins: ['http://127.0.0.1:1'] });
    const second = outgoingPropagation({ allowedOrigins: [`http://127.0.0.1:${portB}`] });
    try {
      first.dispose();
      const { run, atB } = await callFromJob();
      expect(atB).toMatchObject({ id: run?.['requestId'], correlation: 'chain-9' });
    } finally {
      second.dispose();
    }
  });
});

describe('outgoingPropagation(options) in a process where no server ever enabled propagation', () => {
  it('subscribes (and on Node 20 wraps http.get) itself', async () => {
    // A fresh copy of the package, whose first use is outgoingPropagation: the cases above ran servers with
    // propagation first, which had already subscribed this file's copy.
    let fresh!: { outgoingPropagation: typeof outgoingPropagation };
    jest.isolateModules(() => {
      fresh = jest.requireActual('@ambient/http-context');
    });
    const propagation = fresh.outgoingPropagation({ allowedOrigins: [`http://127.0.0.1:${portB}`] });
    try {
      lastSeenByB = undefined;
      await runJob({ name: 'sync', carrier: { 'x-correlation-id': 'chain-fresh' } }, () =>
        callers['http.get']!(`http://127.0.0.1:${portB}/`),
      );
      expect(seenByB()?.headers).toMatchObject({ correlation: 'chain-fresh' });
    } finally {
      propagation.dispose();
    }
  });
});

describe('outgoingPropagation(options) on a runtime whose fetch is not undici (Bun, Deno)', () => {
  it('warns once that fetch calls carry no ids', () => {
    let fresh!: { outgoingPropagation: typeof outgoingPropagation };
    jest.isolateModules(() => {
      fresh = jest.requireActual('@ambient/http-context');
    });
    const versions = Object.getOwnPropertyDescriptor(process, 'versions')!;
    const { undici: _undici, ...withoutUndici } = process.versions;
    Object.defineProperty(process, 'versions', { ...versions, value: withoutUndici });
    const emitWarning = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      fresh.outgoingPropagation({ allowedOrigins: [`http://127.0.0.1:${portB}`] }).dispose();
      const codes = emitWarning.mock.calls.map((call) => (call[1] as { code?: string }).code);
      expect(codes).toEqual(['WARN_AMBIENT_HTTP_FETCH_NOT_PROPAGATED']);
    } finally {
      emitWarning.mockRestore();
      Object.defineProperty(process, 'versions', versions);
    }
  });
});

describe('outgoingPropagation(options): bad options', () => {
  it('throws typed errors at the call, never at the first request', () => {
    expect(() => outgoingPropagation(undefined as never)).toThrow(
      expect.objectContaining({ code: 'ERR_AMBIENT_HTTP_INVALID_ARGUMENT' }) as Error,
    );
    expect(() => outgoingPropagation({} as unknown as Parameters<typeof outgoingPropagation>[0])).toThrow(
      expect.objectContaining({ code: 'ERR_AMBIENT_HTTP_INVALID_OPTION' }) as Error,
    );
    expect(() => outgoingPropagation([] as unknown as Parameters<typeof outgoingPropagation>[0])).toThrow(
      expect.objectContaining({ code: 'ERR_AMBIENT_HTTP_INVALID_ARGUMENT' }) as Error,
    );
    expect(() => outgoingPropagation({ allowedOrigins: ['not an origin'] })).toThrow(
      expect.objectContaining({
        code: 'ERR_AMBIENT_HTTP_INVALID_OPTION',
        message: expect.stringContaining('option "allowedOrigins"') as unknown,
      }) as Error,
    );
    expect(() => outgoingPropagation({ allowedOrigins: [], requestIdHeader: 'bad header' })).toThrow(
      expect.objectContaining({ code: 'ERR_AMBIENT_HTTP_INVALID_OPTION' }) as Error,
    );
  });
});

import { createServer, type Server } from 'node:http';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { send, serveOnLoopback } from '@ambient/conformance';
import { correlationMixin } from '@ambient/pino-context';
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';
import { contextStorage, getContext, tryGetContext } from 'hono/context-storage';
import { stream } from 'hono/streaming';
import pino from 'pino';
import { honoContext, requestContext } from '@ambient/hono-context';

const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

async function serve(app: Hono) {
  return serveOnLoopback(createAdaptorServer({ fetch: app.fetch }) as Server);
}

describe('honoContext on @hono/node-server', () => {
  it("c.var.requestId is the scope's id, and a Response the handler made itself still echoes it", async () => {
    const app = new Hono();
    app.use(honoContext());
    app.get('/raw', (c) => new Response(JSON.stringify([c.var.requestId, requestContext.get('requestId')])));
    const server = await serve(app);
    try {
      const given = await send(server.port, { path: '/raw', headers: { 'x-request-id': 'hono-raw-1' } });
      expect(given.json).toEqual(['hono-raw-1', 'hono-raw-1']);
      expect(given.headers['x-request-id']).toBe('hono-raw-1');
      const made = await send(server.port, { path: '/raw', headers: { 'x-request-id': 'not valid!' } });
      const [variable, scoped] = made.json as string[];
      expect(variable).toBe(scoped);
      expect(variable).not.toBe('not valid!');
      expect(made.headers['x-request-id']).toBe(variable);
    } finally {
      await server.close();
    }
  });

  it("agrees with Hono's contextStorage, mounted before or after it: getContext().var.requestId is Ambient's id", async () => {
    for (const order of ['storage first', 'ambient first'] as const) {
      const app = new Hono();
      if (order === 'storage first') app.use(contextStorage(), honoContext());
      else app.use(honoContext(), contextStorage());
      app.get('/', async (c) => {
        await sleep(1);
        return c.json({
          fromHono: getContext().var.requestId,
          tried: tryGetContext()?.var.requestId,
          ambient: requestContext.get('requestId'),
          variable: c.get('requestId'),
        });
      });
      const server = await serve(app);
      try {
        const response = await send(server.port, { path: '/', headers: { 'x-request-id': `agree-${order.length}` } });
        expect(response.json).toEqual({
          fromHono: `agree-${order.length}`,
          tried: `agree-${order.length}`,
          ambient: `agree-${order.length}`,
          variable: `agree-${order.length}`,
        });
      } finally {
        await server.close();
      }
    }
  });

  it("every line a streamed response's chunks log carries its own request, at concurrency", async () => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n')) if (line !== '') lines.push(JSON.parse(line));
        done();
      },
    });
    const logger = pino({ mixin: correlationMixin(), base: undefined, timestamp: false }, sink);
    const app = new Hono();
    app.use(honoContext());
    app.notFound((c) => {
      logger.info({ nonce: c.req.header('x-nonce'), at: 'not-found' });
      return c.text('none', 404);
    });
    app.get('/stream', (c) =>
      stream(c, async (out) => {
        for (let chunk = 0; chunk < 3; chunk++) {
          await sleep(Math.floor(Math.random() * 3));
          logger.info({ nonce: c.req.header('x-nonce'), at: `chunk ${chunk}` });
          await out.write(`${chunk}`);
        }
      }),
    );
    const server = await serve(app);
    try {
      await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          send(server.port, {
            path: i % 4 === 0 ? '/missing' : '/stream',
            headers: { 'x-request-id': `stream-${i}`, 'x-nonce': `${i}`, traceparent },
          }),
        ),
      );
      await new Promise((resolve) => setImmediate(resolve));
      expect(lines).toHaveLength(10 + 30 * 3);
      for (const line of lines) {
        expect(line).toMatchObject({ requestId: `stream-${String(line.nonce)}`, traceId: traceparent.slice(3, 35) });
      }
    } finally {
      await server.close();
    }
  });

  it("app.onError sees the request's scope, and its response echoes the id", async () => {
    const app = new Hono();
    app.use(honoContext());
    app.get('/', async () => {
      await sleep(1);
      throw new Error('thrown after an await');
    });
    app.onError((error, c) => c.json({ message: error.message, requestId: requestContext.get('requestId') }, 500));
    const server = await serve(app);
    try {
      const response = await send(server.port, { path: '/', headers: { 'x-request-id': 'hono-error-1' } });
      expect(response.status).toBe(500);
      expect(response.json).toEqual({ message: 'thrown after an await', requestId: 'hono-error-1' });
      expect(response.headers['x-request-id']).toBe('hono-error-1');
    } finally {
      await server.close();
    }
  });
});

describe('honoContext without Node bindings (app.request(), other runtimes)', () => {
  function app(options?: Parameters<typeof honoContext>[0]) {
    const hono = new Hono();
    hono.use(honoContext(options));
    hono.get('/json', async (c) => {
      await sleep(1);
      return c.json({ variable: c.var.requestId, scope: requestContext.snapshot() });
    });
    hono.get('/raw', (c) => new Response(c.var.requestId));
    hono.get('/own-header', (c) => c.text('mine', 200, { 'x-request-id': 'chosen-by-handler' }));
    return hono;
  }

  it('opens the scope from the Request headers by the same rules, and echoes the id on any response', async () => {
    const response = await app().request('/json', {
      headers: { 'x-request-id': 'fetch-1', 'x-correlation-id': 'chain-1', traceparent },
    });
    expect(response.headers.get('x-request-id')).toBe('fetch-1');
    expect(await response.json()).toEqual({
      variable: 'fetch-1',
      scope: {
        requestId: 'fetch-1',
        correlationId: 'chain-1',
        traceId: traceparent.slice(3, 35),
        spanId: traceparent.slice(36, 52),
        traceFlags: '01',
      },
    });
    const raw = await app().request('/raw', { headers: { 'x-request-id': 'fetch-raw' } });
    expect([await raw.text(), raw.headers.get('x-request-id')]).toEqual(['fetch-raw', 'fetch-raw']);
  });

  it('replaces an invalid id, and an id sent twice (which Headers joins into one value)', async () => {
    const invalid = await app().request('/raw', { headers: { 'x-request-id': '<script>' } });
    const id = await invalid.text();
    expect(id).not.toBe('<script>');
    expect(invalid.headers.get('x-request-id')).toBe(id);
    const headers = new Headers();
    headers.append('x-request-id', 'twice-a');
    headers.append('x-request-id', 'twice-b');
    const twice = await app().request('/raw', { headers });
    expect(await twice.text()).not.toMatch(/twice/);
  });

  it("keeps a header the handler set itself, and echoes under the option's name or not at all", async () => {
    const own = await app().request('/own-header', { headers: { 'x-request-id': 'fetch-own' } });
    expect(own.headers.get('x-request-id')).toBe('chosen-by-handler');
    const named = await app({ echoRequestId: 'x-trace-ref' }).request('/raw', { headers: { 'x-request-id': 'n-1' } });
    expect(named.headers.get('x-trace-ref')).toBe('n-1');
    const silent = await app({ echoRequestId: false }).request('/raw', { headers: { 'x-request-id': 's-1' } });
    expect([await silent.text(), silent.headers.get('x-request-id')]).toEqual(['s-1', null]);
  });

  it("takes an env of the app's own (Cloudflare-style bindings) for no Node request", async () => {
    const response = await app().request('/raw', { headers: { 'x-request-id': 'env-1' } }, { DB: 'binding' });
    expect([await response.text(), response.headers.get('x-request-id')]).toEqual(['env-1', 'env-1']);
  });

  it('sends the ids on from app.request() too, to the allowed origins', async () => {
    const upstream = await serveOnLoopback(
      createServer((req, res) => res.end(JSON.stringify(req.headers['x-request-id'] ?? null))),
    );
    try {
      const origin = `http://127.0.0.1:${upstream.port}`;
      const hono = new Hono();
      hono.use(honoContext({ propagation: { allowedOrigins: [origin] } }));
      hono.get('/', async (c) => c.text(await (await fetch(origin)).text()));
      const response = await hono.request('/', { headers: { 'x-request-id': 'sent-on-1' } });
      expect(await response.text()).toBe('"sent-on-1"');
    } finally {
      await upstream.close();
    }
  });

  it('outside the request nothing is visible', async () => {
    await app().request('/raw');
    expect(requestContext.active).toBe(false);
  });
});

describe('honoContext(options)', () => {
  it('rejects options that are not the HTTP rules, with a coded error', () => {
    expect(() => honoContext({ requestIdHeader: 42 } as never)).toThrow(
      expect.objectContaining({ code: 'ERR_AMBIENT_HTTP_INVALID_OPTION' }),
    );
    expect(() => honoContext({ unknownOption: true } as never)).toThrow(
      expect.objectContaining({ code: 'ERR_AMBIENT_HTTP_INVALID_OPTION' }),
    );
  });
});

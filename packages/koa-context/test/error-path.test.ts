import http from 'node:http';
import { send, serveOnLoopback } from '@ambient/conformance';
import Koa from 'koa';
import Koa2 from 'koa2';
import { koaContext, requestContext } from '@ambient/koa-context';

type AnyKoa = new () => {
  use(middleware: (ctx: never, next: () => Promise<unknown>) => unknown): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  callback(): http.RequestListener;
  silent?: boolean;
};

describe.each([
  ['koa 3', Koa as unknown as AnyKoa],
  ['koa 2', Koa2 as AnyKoa],
])("%s's own error path, with no error-handling middleware", (_name, KoaClass) => {
  it("app.on('error') sees the request's context, and the 500 still echoes the request id", async () => {
    const app = new KoaClass();
    const seenByErrorListener: unknown[] = [];
    app.on('error', (error) => seenByErrorListener.push([error.message, requestContext.get('requestId')]));
    app.use(koaContext());
    app.use(async () => {
      await new Promise((resolve) => setTimeout(resolve, 2));
      throw new Error('thrown after an await');
    });
    const server = await serveOnLoopback(http.createServer(app.callback()));
    try {
      const response = await send(server.port, { path: '/', headers: { 'x-request-id': 'koa-error-1' } });
      expect(response.status).toBe(500);
      expect(response.headers['x-request-id']).toBe('koa-error-1');
      expect(seenByErrorListener).toEqual([['thrown after an await', 'koa-error-1']]);
    } finally {
      await server.close();
    }
  });

  it('several requests of one app each see their own context on the error path', async () => {
    const app = new KoaClass();
    const seenByErrorListener: unknown[] = [];
    // Gates, not timers, so that the order cannot depend on how loaded the machine is: /fast fails only once
    // /slow is in its handler, and /slow fails only once /fast has, so /slow is in flight while /fast fails.
    let slowEntered!: () => void;
    const slowIsIn = new Promise<void>((resolve) => (slowEntered = resolve));
    let openGate!: () => void;
    const fastHasFailed = new Promise<void>((resolve) => (openGate = resolve));
    app.on('error', (error) => {
      seenByErrorListener.push([error.message, requestContext.get('requestId')]);
      if (error.message === '/fast') openGate();
    });
    app.use(koaContext());
    app.use(async (ctx: { path: string }) => {
      if (ctx.path === '/slow') {
        slowEntered();
        await fastHasFailed;
      } else {
        await slowIsIn;
      }
      throw new Error(ctx.path);
    });
    const server = await serveOnLoopback(http.createServer(app.callback()));
    try {
      const responses = await Promise.all(
        ['/slow', '/fast'].map((path, i) => send(server.port, { path, headers: { 'x-request-id': `koa-many-${i}` } })),
      );
      expect(responses.map((response) => response.headers['x-request-id'])).toEqual(['koa-many-0', 'koa-many-1']);
      expect(seenByErrorListener).toEqual([
        ['/fast', 'koa-many-1'],
        ['/slow', 'koa-many-0'],
      ]);
    } finally {
      await server.close();
    }
  });

  it('a ctx.onerror set by an earlier middleware is the one bound, and still runs in the request', async () => {
    const app = new KoaClass();
    app.silent = true;
    const seenByOwnOnError: unknown[] = [];
    app.use((ctx: { onerror(error: unknown): void }, next: () => Promise<unknown>) => {
      const inherited = ctx.onerror;
      ctx.onerror = function (this: unknown, error: unknown) {
        if (error !== null && error !== undefined) seenByOwnOnError.push(requestContext.get('requestId'));
        return inherited.call(this, error);
      };
      return next();
    });
    app.use(koaContext());
    app.use(async () => {
      await new Promise((resolve) => setTimeout(resolve, 2));
      throw new Error('thrown');
    });
    const server = await serveOnLoopback(http.createServer(app.callback()));
    try {
      const response = await send(server.port, { path: '/', headers: { 'x-request-id': 'koa-own-onerror' } });
      expect([response.status, response.headers['x-request-id']]).toEqual([500, 'koa-own-onerror']);
      expect(seenByOwnOnError).toEqual(['koa-own-onerror']);
    } finally {
      await server.close();
    }
  });

  it('a ctx with its own onerror and the echo off never takes a header another request bound later', async () => {
    const app = new KoaClass();
    app.silent = true;
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let reached: () => void = () => undefined;
    const ownIsWaiting = new Promise<void>((resolve) => (reached = resolve));
    const silent = koaContext({ echoRequestId: false });
    const echoing = koaContext({ echoRequestId: 'x-other-id' });
    app.use((ctx: { path: string; onerror(error: unknown): void }, next: () => Promise<unknown>) => {
      if (ctx.path !== '/own') return echoing(ctx as never, next);
      const inherited = ctx.onerror;
      ctx.onerror = function (this: unknown, error: unknown) {
        return inherited.call(this, error);
      };
      return silent(ctx as never, next);
    });
    app.use(async (ctx: { path: string }) => {
      if (ctx.path !== '/own') return;
      reached();
      await held;
      throw new Error('after the other request');
    });
    const server = await serveOnLoopback(http.createServer(app.callback()));
    try {
      // The app's first request: its ctx binds onerror on itself, before any binding on the prototype.
      const own = send(server.port, { path: '/own', headers: { 'x-request-id': 'koa-own-1' } });
      await ownIsWaiting;
      const other = await send(server.port, { path: '/other', headers: { 'x-request-id': 'koa-other-1' } });
      expect(other.headers['x-other-id']).toBe('koa-other-1');
      release();
      const response = await own;
      expect(response.status).toBe(500);
      expect(response.headers['x-other-id']).toBeUndefined();
    } finally {
      await server.close();
    }
  });

  it('two koaContext middlewares echoing different headers: the error keeps the inner one, request after request', async () => {
    const app = new KoaClass();
    app.silent = true;
    app.use(koaContext({ echoRequestId: 'x-outer-id' }));
    app.use(koaContext({ echoRequestId: 'x-inner-id' }));
    app.use(() => {
      throw new Error('boom');
    });
    const server = await serveOnLoopback(http.createServer(app.callback()));
    try {
      for (const id of ['koa-two-1', 'koa-two-2']) {
        const response = await send(server.port, { path: '/', headers: { 'x-request-id': id } });
        expect(response.status).toBe(500);
        expect(response.headers['x-inner-id']).toBe(id);
        expect(response.headers['x-outer-id']).toBeUndefined();
      }
    } finally {
      await server.close();
    }
  });

  it('an error with its own headers keeps them, next to the echoed id', async () => {
    const app = new KoaClass();
    app.silent = true;
    app.use(koaContext());
    app.use(() => {
      throw Object.assign(new Error('teapot'), { status: 418, expose: true, headers: { 'retry-after': '5' } });
    });
    const server = await serveOnLoopback(http.createServer(app.callback()));
    try {
      const response = await send(server.port, { path: '/', headers: { 'x-request-id': 'koa-error-2' } });
      expect([response.status, response.headers['retry-after'], response.headers['x-request-id']]).toEqual([
        418,
        '5',
        'koa-error-2',
      ]);
    } finally {
      await server.close();
    }
  });

  it('ctx.onerror(null), as a node-style callback, does nothing and the response goes on', async () => {
    // koa itself calls it so on every response that finishes without an error (on-finished's callback).
    const app = new KoaClass();
    const seenByErrorListener: unknown[] = [];
    app.on('error', (error) => seenByErrorListener.push(error));
    app.use(koaContext());
    app.use((ctx: { onerror(error: unknown): void; body: unknown }) => {
      ctx.onerror(null);
      ctx.onerror(undefined);
      ctx.body = { requestId: requestContext.get('requestId') };
    });
    const server = await serveOnLoopback(http.createServer(app.callback()));
    try {
      const response = await send(server.port, { path: '/', headers: { 'x-request-id': 'koa-null-error' } });
      expect([response.status, response.headers['x-request-id'], response.json]).toEqual([
        200,
        'koa-null-error',
        { requestId: 'koa-null-error' },
      ]);
      expect(seenByErrorListener).toEqual([]);
    } finally {
      await server.close();
    }
  });
});

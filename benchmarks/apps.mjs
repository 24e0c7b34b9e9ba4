// The servers of the HTTP benchmarks, each in a process of its own (server.mjs): the seed blog's route,
// GET /users/:id -> an async store lookup -> JSON with the user and the request id read back after the await.
//   express | koa | fastify, with `ambient` (the adapter as its README mounts it), `hand-written` (the budgets'
//     reference, hand-written.mjs) or `echo-only` (the simplest echoing hook, no listener bound; `echo-raw`, the
//     same on fastify's raw response, for the lab);
//   hono, on @hono/node-server: `bare` (no context), `hono-own` (Hono's contextStorage() and requestId(), the id
//     read back with getContext()) or `ambient` (honoContext());
//   nest-express | nest-fastify, the route as a Nest 12 controller: `bare`, `hand-written`, `nestjs-cls` or
//     `ambient` (nest-app.mjs);
//   full-stack, the same route on express 5 with a request id, one pino line (to /dev/null) and one span (the
//     OpenTelemetry SDK, an exporter that drops spans): `ambient` (expressContext, correlationMixin,
//     AmbientContextManager), `peers` (cls-rtracer, a pino mixin reading it, AsyncLocalStorageContextManager) or
//     `no-context` (no context manager, a mixin of constant ids of the real ids' lengths: the ceiling).
import http from 'node:http';
import { createRequire } from 'node:module';
import { echoOnly, echoOnRaw, handWritten, readers } from './hand-written.mjs';
import { instructions } from './harness.mjs';

const require = createRequire(import.meta.url);
const users = new Map(
  Array.from({ length: 100 }, (_, i) => [String(i + 1), { id: String(i + 1), name: `user ${i + 1}` }]),
);

/** The store behind the route: one await, so that the context has a hop to survive. */
export async function findUser(id) {
  await null;
  return users.get(id);
}

/** The context middleware of a variant, and how the route reads the request id back. */
async function contextOf(framework, variant) {
  if (variant === 'hand-written') return { middleware: handWritten[framework](), readId: readers.readRequestId };
  if (variant === 'echo-only') return { middleware: echoOnly[framework](), readId: readers.readRequestId };
  if (variant === 'echo-raw') return { middleware: echoOnRaw, readId: readers.readRequestId }; // fastify, the lab
  if (variant !== 'ambient') throw new Error(`unknown variant ${variant}`);
  const adapter = await import(`@ambient/${framework}-context`);
  const middleware = { express: adapter.expressContext?.(), koa: adapter.koaContext?.(), fastify: undefined };
  return {
    middleware: middleware[framework],
    plugin: adapter.fastifyContext,
    readId: () => adapter.requestContext.get('requestId'),
  };
}

const apps = {
  async express(variant) {
    const { default: express } = await import('express');
    const { middleware, readId } = await contextOf('express', variant);
    const app = express();
    app.use(middleware);
    app.get('/users/:id', async (req, res) => res.json({ ...(await findUser(req.params.id)), requestId: readId() }));
    return http.createServer(app);
  },
  async koa(variant) {
    const { default: Koa } = await import('koa');
    const { default: Router } = await import('@koa/router');
    const { middleware, readId } = await contextOf('koa', variant);
    const app = new Koa();
    const router = new Router();
    router.get('/users/:id', async (ctx) => (ctx.body = { ...(await findUser(ctx.params.id)), requestId: readId() }));
    app.use(middleware).use(router.routes());
    return http.createServer(app.callback());
  },
  async fastify(variant) {
    const { default: fastify } = await import('fastify');
    const { middleware, plugin, readId } = await contextOf('fastify', variant);
    let server;
    const app = fastify({ serverFactory: (handler) => (server = http.createServer(handler)) });
    if (plugin !== undefined) await app.register(plugin);
    else app.addHook('onRequest', middleware);
    app.get('/users/:id', async (request) => ({ ...(await findUser(request.params.id)), requestId: readId() }));
    await app.ready();
    return server;
  },
  async hono(variant) {
    const { Hono } = await import('hono');
    const { createAdaptorServer } = await import('@hono/node-server');
    const app = new Hono();
    let readId;
    if (variant === 'ambient') {
      const { honoContext, requestContext } = await import('@ambient/hono-context');
      app.use(honoContext());
      readId = () => requestContext.get('requestId');
    } else if (variant === 'hono-own') {
      const { contextStorage, getContext } = await import('hono/context-storage');
      const { requestId } = await import('hono/request-id');
      app.use(contextStorage(), requestId());
      readId = () => getContext().var.requestId;
    } else if (variant === 'bare') readId = () => undefined;
    else throw new Error(`unknown hono variant ${variant}`);
    app.get('/users/:id', async (c) => c.json({ ...(await findUser(c.req.param('id'))), requestId: readId() }));
    return createAdaptorServer({ fetch: app.fetch });
  },
  'nest-express': async (variant) => (await import('./nest-app.mjs')).nestServer('express', variant),
  'nest-fastify': async (variant) => (await import('./nest-app.mjs')).nestServer('fastify', variant),
  async 'full-stack'(variant) {
    const api = require('@opentelemetry/api');
    const { BasicTracerProvider, BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base');
    const pino = require('pino');
    const express = require('express');
    const dropSpans = {
      export: (_spans, done) => done({ code: 0 }),
      shutdown: async () => {},
      forceFlush: async () => {},
    };
    // Exported every 512 spans, never on the 5-second timer, which would fire after a number of spans that depends
    // on the machine's speed (and under callgrind a request takes milliseconds).
    const batch = new BatchSpanProcessor(dropSpans, { scheduledDelayMillis: 24 * 60 * 60_000 });
    api.trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [batch] }));
    const destination = pino.destination({ dest: '/dev/null', sync: true });
    const app = express();
    let mixin;
    if (variant === 'no-context') {
      const ids = { requestId: '0190f5a2-7c3e-7d41-8f1a-3b2c4d5e6f70', traceId: '4bf92f3577b34da6a3ce929d0e0e4736' };
      mixin = () => ({ ...ids, spanId: '00f067aa0ba902b7' });
    } else if (variant === 'peers') {
      const { AsyncLocalStorageContextManager } = require('@opentelemetry/context-async-hooks');
      const rTracer = require('cls-rtracer');
      api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
      mixin = () => {
        const span = api.trace.getActiveSpan()?.spanContext();
        return { requestId: rTracer.id(), traceId: span?.traceId, spanId: span?.spanId };
      };
      app.use(rTracer.expressMiddleware());
    } else if (variant === 'ambient') {
      const { AmbientContextManager } = require('@ambient/opentelemetry-context');
      const { expressContext } = require('@ambient/express-context');
      api.context.setGlobalContextManager(new AmbientContextManager().enable());
      mixin = require('@ambient/pino-context').correlationMixin();
      app.use(expressContext());
    } else throw new Error(`unknown full-stack variant ${variant}`);
    const logger = pino({ mixin }, destination);
    const tracer = api.trace.getTracer('full-stack-benchmark');
    // One span a request, active for the rest of the chain, ended when the response has finished.
    app.use((req, res, next) =>
      tracer.startActiveSpan('GET /users/:id', { kind: api.SpanKind.SERVER }, (span) => {
        res.on('finish', () => span.end());
        next();
      }),
    );
    app.get('/users/:id', async (req, res) => {
      const user = await findUser(req.params.id);
      logger.info({ userId: req.params.id }, 'user found');
      res.json(user);
    });
    return http.createServer(app);
  },
};

/** The `node:http` server of `name` (express, koa, fastify, hono, nest-express, nest-fastify, full-stack) and `variant`, not yet listening. */
export function appServer(name, variant) {
  if (!Object.hasOwn(apps, name)) throw new Error(`unknown app ${name}`);
  return apps[name](variant);
}

/**
 * Instructions a request of one server (server.mjs) under callgrind: warmed up uninstrumented on connections of
 * 1,000 requests (a connection after one very long one recompiles code that had been idle), then `requests`
 * counted on one connection, one request a wake-up whatever the machine does.
 */
export function serverInstructions(name, variant, { connections = 5, requests = 2_000, nodeFlags } = {}) {
  const burst = (server, amount) => server.burst({ connections: 1, amount, timeout: 300 });
  return instructions(new URL('server.mjs', import.meta.url).pathname, [name, variant], {
    warmUp: async (server) => {
      for (let i = 0; i < connections; i++) await burst(server, 1_000);
    },
    count: (server) => burst(server, requests),
    units: requests,
    nodeFlags,
  });
}

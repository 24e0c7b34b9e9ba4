// The servers of the framework benchmarks: the seed blog's route, GET /users/:id -> store lookup -> JSON with
// the user and the request id read back from the variant's context after the lookup's await.
// Every variant is set up as its README says. The id work differs the way it does in production: Ambient
// validates x-request-id or makes a UUIDv7 and echoes it; cls-rtracer makes a UUIDv1; the hand-written and
// express-http-context variants make a randomUUID(); @fastify/request-context stores fastify's request.id.
// `als-echo` is the hand-written middleware that also echoes its id in `x-request-id`, through the same call
// Ambient's echo makes (res.setHeader; fastify's reply.header): it tells Ambient's own bytes from the echo's,
// which Node's header writing costs any library that echoes (issue #18).
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { createRequire } from 'node:module';
import { findUser } from '../users-route.mjs';

const require = createRequire(import.meta.url);

async function expressApp(variant) {
  const { default: express } = await import('express');
  const app = express();
  let readId = () => undefined;
  if (variant === 'ambient' || variant === 'ambient-diagnostics') {
    // With @ambient/diagnostics on, as a team would leave it on in staging: its defaults, warnings included, or
    // the options in BENCH_DIAGNOSTICS (JSON), to find what each part costs.
    if (variant === 'ambient-diagnostics') {
      const options =
        process.env.BENCH_DIAGNOSTICS === undefined ? undefined : JSON.parse(process.env.BENCH_DIAGNOSTICS);
      (await import('@ambient/diagnostics')).enableDiagnostics(options);
    }
    const { expressContext, requestContext } = await import('@ambient/express-context');
    app.use(expressContext());
    readId = () => requestContext.get('requestId');
  } else if (variant === 'als') {
    const als = new AsyncLocalStorage();
    app.use((req, res, next) => als.run({ requestId: randomUUID() }, next));
    readId = () => als.getStore().requestId;
  } else if (variant === 'als-echo') {
    const als = new AsyncLocalStorage();
    app.use((req, res, next) => {
      const requestId = randomUUID();
      res.setHeader('x-request-id', requestId);
      als.run({ requestId }, next);
    });
    readId = () => als.getStore().requestId;
  } else if (variant === 'cls-rtracer') {
    const rTracer = require('cls-rtracer');
    app.use(rTracer.expressMiddleware());
    readId = () => rTracer.id();
  } else if (variant === 'express-http-context') {
    const httpContext = require('express-http-context');
    app.use(httpContext.middleware);
    app.use((req, res, next) => {
      httpContext.set('requestId', randomUUID());
      next();
    });
    readId = () => httpContext.get('requestId');
  } else if (variant !== 'bare') throw new Error(`unknown express variant ${variant}`);
  app.get('/users/:id', async (req, res) => {
    const user = await findUser(req.params.id);
    if (user === undefined) return res.status(404).json({ error: 'user not found' });
    res.json({ ...user, requestId: readId() });
  });
  return http.createServer(app);
}

async function koaApp(variant) {
  const { default: Koa } = await import('koa');
  const { default: Router } = await import('@koa/router');
  const app = new Koa();
  const router = new Router();
  let readId = () => undefined;
  if (variant === 'ambient') {
    const { koaContext, requestContext } = await import('@ambient/koa-context');
    app.use(koaContext());
    readId = () => requestContext.get('requestId');
  } else if (variant === 'als') {
    const als = new AsyncLocalStorage();
    app.use((ctx, next) => als.run({ requestId: randomUUID() }, next));
    readId = () => als.getStore().requestId;
  } else if (variant === 'als-echo') {
    const als = new AsyncLocalStorage();
    app.use((ctx, next) => {
      const requestId = randomUUID();
      ctx.res.setHeader('x-request-id', requestId);
      return als.run({ requestId }, next);
    });
    readId = () => als.getStore().requestId;
  } else if (variant !== 'bare') throw new Error(`unknown koa variant ${variant}`);
  router.get('/users/:id', async (ctx) => {
    const user = await findUser(ctx.params.id);
    if (user === undefined) {
      ctx.status = 404;
      ctx.body = { error: 'user not found' };
      return;
    }
    ctx.body = { ...user, requestId: readId() };
  });
  app.use(router.routes());
  return http.createServer(app.callback());
}

async function fastifyApp(variant) {
  const { default: fastify } = await import('fastify');
  let server;
  const app = fastify({ serverFactory: (handler) => (server = http.createServer(handler)) });
  let readId = () => undefined;
  if (variant === 'ambient') {
    const { fastifyContext, requestContext } = await import('@ambient/fastify-context');
    await app.register(fastifyContext);
    readId = () => requestContext.get('requestId');
  } else if (variant === 'als') {
    // The hand-written floor (issue #18): AsyncLocalStorage#run around the rest of the request, from onRequest.
    const als = new AsyncLocalStorage();
    app.addHook('onRequest', (_request, _reply, done) => als.run({ requestId: randomUUID() }, done));
    readId = () => als.getStore().requestId;
  } else if (variant === 'als-echo') {
    const als = new AsyncLocalStorage();
    app.addHook('onRequest', (_request, reply, done) => {
      const requestId = randomUUID();
      reply.header('x-request-id', requestId);
      als.run({ requestId }, done);
    });
    readId = () => als.getStore().requestId;
  } else if (variant === 'request-context') {
    const { fastifyRequestContext, requestContext } = await import('@fastify/request-context');
    await app.register(fastifyRequestContext);
    app.addHook('onRequest', async (request) => request.requestContext.set('requestId', request.id));
    readId = () => requestContext.get('requestId');
  } else if (variant !== 'bare') throw new Error(`unknown fastify variant ${variant}`);
  app.get('/users/:id', async (request, reply) => {
    const user = await findUser(request.params.id);
    if (user === undefined) return reply.status(404).send({ error: 'user not found' });
    return { ...user, requestId: readId() };
  });
  await app.ready();
  return server;
}

const apps = { express: expressApp, koa: koaApp, fastify: fastifyApp };

/** The `node:http` server of one framework and variant (frameworkVariants), not yet listening. */
export function frameworkServer(framework, variant) {
  if (!Object.hasOwn(apps, framework)) throw new Error(`unknown framework ${framework}`);
  return apps[framework](variant);
}

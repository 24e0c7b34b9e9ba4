// The seed app on fastify 5, with the recommended setup: fastify logs through the app's pino logger (the one
// with correlationMixin()), and fastifyContext makes request.id, fastify's reqId and requestId one id. The
// app writes the same lines as express-users and koa-users, so fastify's own per-request lines ("incoming
// request", "request completed") are turned off here; without `logController` they appear too, with that id.
import fastify, { LogController } from 'fastify';
import { fastifyContext, requestContext } from '@ambient/fastify-context';
import { isUserId } from '@ambient/example-users-store';

export async function createApp({ store, logger }) {
  const app = fastify({
    loggerInstance: logger,
    logController: new LogController({ disableRequestLogging: true }),
  });
  await app.register(fastifyContext);

  // request.log lines carry fastify's reqId and the mixin's requestId: the same id.
  app.addHook('onRequest', async (request) => {
    request.log.info({ method: request.method, url: request.url }, 'request received');
  });
  app.addHook('onResponse', async (request, reply) => {
    request.log.info({ status: reply.statusCode }, 'response sent');
  });
  app.setErrorHandler(async (error, request, reply) => {
    request.log.error({ err: error }, 'request failed');
    return reply.status(500).send({ error: 'internal error', requestId: request.id });
  });

  app.get('/users/:id', async (request, reply) => {
    const { id } = request.params;
    if (!isUserId(id)) {
      request.log.warn({ id }, 'malformed user id');
      return reply.status(400).send({ error: 'malformed user id', requestId: request.id });
    }
    // The store logs through the module-level logger and never sees the request: requestContext carries the id.
    const user = await store.findUser(id);
    if (user === undefined) {
      request.log.info({ id }, 'no such user');
      return reply.status(404).send({ error: 'user not found', requestId: requestContext.get('requestId') });
    }
    request.log.info({ id }, 'user found');
    return user;
  });
  return app;
}

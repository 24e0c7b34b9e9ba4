// The seed app on fastify 5: the same API and log lines as express-users. fastify's own logger stays off (its
// default), so every line comes from one logger with one set of fields (the README shows fastify's logger).
import fastify from 'fastify';
import { fastifyContext, requestContext } from '@ambient/fastify-context';
import { isUserId } from '@ambient/example-users-store';

export async function createApp({ store, logger }) {
  const app = fastify();
  await app.register(fastifyContext);

  app.addHook('onRequest', async (request) => {
    logger.info({ method: request.method, url: request.url }, 'request received');
  });
  app.addHook('onResponse', async (_request, reply) => {
    logger.info({ status: reply.statusCode }, 'response sent');
  });
  app.setErrorHandler(async (error, _request, reply) => {
    logger.error({ err: error }, 'request failed');
    return reply.status(500).send({ error: 'internal error', requestId: requestContext.get('requestId') });
  });

  app.get('/users/:id', async (request, reply) => {
    const { id } = request.params;
    if (!isUserId(id)) {
      logger.warn({ id }, 'malformed user id');
      return reply.status(400).send({ error: 'malformed user id', requestId: requestContext.get('requestId') });
    }
    const user = await store.findUser(id);
    if (user === undefined) {
      logger.info({ id }, 'no such user');
      return reply.status(404).send({ error: 'user not found', requestId: requestContext.get('requestId') });
    }
    logger.info({ id }, 'user found');
    return user;
  });
  return app;
}

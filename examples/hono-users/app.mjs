// The seed app on Hono 4: the same API and log lines as express-users. honoContext() opens the request's scope
// on Node's own request, so 'response sent' (Node's 'finish') and app.onError's line carry the request id too.
import { Hono } from 'hono';
import { honoContext, requestContext } from '@ambient/hono-context';
import { isUserId } from '@ambient/example-users-store';

export function createApp({ store, logger }) {
  const app = new Hono();
  app.use(honoContext());

  app.use(async (c, next) => {
    logger.info({ method: c.req.method, url: new URL(c.req.url).pathname }, 'request received');
    c.env.outgoing.on('finish', () => logger.info({ status: c.env.outgoing.statusCode }, 'response sent'));
    await next();
  });

  app.get('/users/:id', async (c) => {
    const id = c.req.param('id');
    if (!isUserId(id)) {
      logger.warn({ id }, 'malformed user id');
      return c.json({ error: 'malformed user id', requestId: c.var.requestId }, 400);
    }
    const user = await store.findUser(id);
    if (user === undefined) {
      logger.info({ id }, 'no such user');
      return c.json({ error: 'user not found', requestId: c.var.requestId }, 404);
    }
    logger.info({ id }, 'user found');
    return c.json(user);
  });

  // Hono calls onError inside the chain honoContext() opened: the request's scope is still open.
  app.onError((error, c) => {
    logger.error({ err: error }, 'request failed');
    return c.json({ error: 'internal error', requestId: requestContext.get('requestId') }, 500);
  });
  return app;
}

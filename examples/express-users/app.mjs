// The seed app on express 5: GET /users/:id answers the user as JSON, 404 when absent, 400 for a malformed id.
// Nothing below passes a request id around: expressContext() opens the request's scope, and the logger's
// correlationMixin() writes its id on every line, from middleware, the handler, the store and the error handler.
import express from 'express';
import { expressContext, requestContext } from '@ambient/express-context';
import { isUserId } from '@ambient/example-users-store';

export function createApp({ store, logger }) {
  const app = express();
  app.disable('x-powered-by');
  app.use(expressContext());

  app.use((req, res, next) => {
    logger.info({ method: req.method, url: req.originalUrl }, 'request received');
    res.on('finish', () => logger.info({ status: res.statusCode }, 'response sent'));
    next();
  });

  app.get('/users/:id', async (req, res) => {
    const { id } = req.params;
    if (!isUserId(id)) {
      logger.warn({ id }, 'malformed user id');
      return res.status(400).json({ error: 'malformed user id', requestId: requestContext.get('requestId') });
    }
    const user = await store.findUser(id);
    if (user === undefined) {
      logger.info({ id }, 'no such user');
      return res.status(404).json({ error: 'user not found', requestId: requestContext.get('requestId') });
    }
    logger.info({ id }, 'user found');
    res.json(user);
  });

  // express 5 passes a rejected handler's error here; the request's scope is still open.
  app.use((error, req, res, _next) => {
    logger.error({ err: error }, 'request failed');
    res.status(500).json({ error: 'internal error', requestId: requestContext.get('requestId') });
  });
  return app;
}

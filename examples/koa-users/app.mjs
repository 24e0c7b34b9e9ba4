// The seed app on koa 3 with @koa/router: the same API and log lines as express-users.
import Koa from 'koa';
import Router from '@koa/router';
import { koaContext, requestContext } from '@ambient/koa-context';
import { isUserId } from '@ambient/example-users-store';

export function createApp({ store, logger }) {
  const app = new Koa();
  const router = new Router();
  app.use(koaContext());

  app.use(async (ctx, next) => {
    logger.info({ method: ctx.method, url: ctx.url }, 'request received');
    ctx.res.on('finish', () => logger.info({ status: ctx.status }, 'response sent'));
    try {
      await next();
    } catch (error) {
      logger.error({ err: error }, 'request failed');
      ctx.status = 500;
      ctx.body = { error: 'internal error', requestId: requestContext.get('requestId') };
    }
  });

  router.get('/users/:id', async (ctx) => {
    const { id } = ctx.params;
    if (!isUserId(id)) {
      logger.warn({ id }, 'malformed user id');
      ctx.status = 400;
      ctx.body = { error: 'malformed user id', requestId: requestContext.get('requestId') };
      return;
    }
    const user = await store.findUser(id);
    if (user === undefined) {
      logger.info({ id }, 'no such user');
      ctx.status = 404;
      ctx.body = { error: 'user not found', requestId: requestContext.get('requestId') };
      return;
    }
    logger.info({ id }, 'user found');
    ctx.body = user;
  });
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}

import Koa from 'koa';
import { expect, test } from 'tstyche';
import { koaContext, requestContext, type KoaContextOptions } from '@ambient/koa-context';

test('koaContext() is middleware koa accepts, with typed options', () => {
  const app = new Koa();
  expect(app.use).type.toBeCallableWith(koaContext());
  expect(app.use).type.toBeCallableWith(
    koaContext({ requestIdHeader: false, traceContext: false } satisfies KoaContextOptions),
  );
  expect(koaContext).type.not.toBeCallableWith({ requestIdHeader: 42 });
  expect(koaContext).type.not.toBeCallableWith({ headerName: 'x-id' });
});

test('requestContext is re-exported with its typed store', () => {
  const app = new Koa();
  app.use(async (ctx) => {
    ctx.body = { requestId: requestContext.require('requestId') };
  });
  expect(requestContext.get('traceId')).type.toBe<string | undefined>();
});

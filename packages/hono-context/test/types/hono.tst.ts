import { Hono } from 'hono';
import { expect, test } from 'tstyche';
import { honoContext, requestContext, type HonoContextOptions } from '@ambient/hono-context';

test('honoContext() is middleware Hono accepts, with typed options', () => {
  const app = new Hono();
  expect(app.use).type.toBeCallableWith(honoContext());
  expect(app.use).type.toBeCallableWith(
    honoContext({ requestIdHeader: false, traceContext: false } satisfies HonoContextOptions),
  );
  expect(honoContext).type.not.toBeCallableWith({ requestIdHeader: 42 });
  expect(honoContext).type.not.toBeCallableWith({ headerName: 'x-id' });
});

test('c.var.requestId is a string on any app, as with hono/request-id', () => {
  const app = new Hono();
  app.use(honoContext());
  app.get('/', (c) => {
    expect(c.var.requestId).type.toBe<string>();
    expect(c.get('requestId')).type.toBe<string>();
    expect(requestContext.get('traceId')).type.toBe<string | undefined>();
    return c.text(c.var.requestId);
  });
});

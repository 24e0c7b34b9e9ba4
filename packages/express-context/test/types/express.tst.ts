import express from 'express';
import { expect, test } from 'tstyche';
import { expressContext, requestContext, type ExpressContextOptions } from '@ambient/express-context';

test('expressContext() is middleware express accepts', () => {
  const app = express();
  expect(app.use).type.toBeCallableWith(expressContext());
  expect(app.use).type.toBeCallableWith(expressContext({ requestIdHeader: 'x-correlation-id', echoRequestId: false }));
  expect(app.get).type.toBeCallableWith('/', expressContext(), (_req: express.Request, res: express.Response) => {
    res.json({ requestId: requestContext.require('requestId') });
  });
});

test('its options are http-context options, checked at compile time', () => {
  expect(expressContext).type.toBeCallableWith({
    propagation: { allowedOrigins: ['http://127.0.0.1:8080'] },
  } satisfies ExpressContextOptions);
  expect(expressContext).type.not.toBeCallableWith({ requestIdHeader: 42 });
  expect(expressContext).type.not.toBeCallableWith({ onError: () => undefined });
  expect(expressContext).type.not.toBeCallableWith({ headerName: 'x-id' });
});

test('requestContext is re-exported with its typed store', () => {
  expect(requestContext.get('requestId')).type.toBe<string | undefined>();
  expect(requestContext.get).type.not.toBeCallableWith('requestID');
});

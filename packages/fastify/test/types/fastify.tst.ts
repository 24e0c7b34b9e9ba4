import fastify from 'fastify';
import { expect, test } from 'tstyche';
import { fastifyContext, requestContext } from '@ambient/fastify-context';

test('fastifyContext registers as a fastify plugin with typed options', () => {
  const app = fastify();
  expect(app.register).type.toBeCallableWith(fastifyContext);
  expect(app.register).type.toBeCallableWith(fastifyContext, {
    useFastifyRequestId: true,
    requestIdHeader: 'x-correlation-id',
  });
  expect(app.register).type.not.toBeCallableWith(fastifyContext, { useFastifyRequestId: 'yes' });
  expect(app.register).type.not.toBeCallableWith(fastifyContext, { requestIdHeader: 42 });
});

test('requestContext is re-exported with its typed store', () => {
  expect(requestContext.get('requestId')).type.toBe<string | undefined>();
});

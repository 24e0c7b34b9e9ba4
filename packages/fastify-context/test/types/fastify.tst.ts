import fastify from 'fastify';
import { expect, test } from 'tstyche';
import {
  fastifyContext,
  requestContext,
  type FastifyContextErrorCode,
  type FastifyContextWarningCode,
} from '@ambient/fastify-context';

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

test('the recommended setup needs no genReqId of its own: fastify() and register() as a user writes them', () => {
  const app = fastify({ requestIdHeader: false });
  expect(app.register).type.toBeCallableWith(fastifyContext, {
    generateRequestId: () => 'id',
    validateRequestId: (id: string) => id.length > 0,
  });
  expect(app.register).type.not.toBeCallableWith(fastifyContext, { generateRequestId: (req: unknown) => req });
});

test('warning and error codes are unions a switch can check', () => {
  expect<FastifyContextWarningCode>().type.toBe<
    | 'WARN_AMBIENT_FASTIFY_REQUEST_ID_HEADER'
    | 'WARN_AMBIENT_FASTIFY_USER_GEN_REQ_ID'
    | 'WARN_AMBIENT_FASTIFY_GEN_REQ_ID_REPLACED'
    | 'WARN_AMBIENT_FASTIFY_REQUEST_ID_FAILED'
  >();
  expect<FastifyContextWarningCode>().type.not.toBeAssignableFrom('WARN_AMBIENT_FASTIFY_REQUEST_ID_HEADERS');
  expect<FastifyContextErrorCode>().type.toBe<'ERR_AMBIENT_FASTIFY_INVALID_OPTION'>();
});

test('requestContext is re-exported with its typed store', () => {
  expect(requestContext.get('requestId')).type.toBe<string | undefined>();
});

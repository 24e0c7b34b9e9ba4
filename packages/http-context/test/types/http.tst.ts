import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { expect, test } from 'tstyche';
import {
  httpContext,
  outgoingPropagation,
  type OutgoingPropagation,
  requestContext,
  type HttpContextErrorCode,
  type HttpContextOptions,
} from '@ambient/http-context';
import { createRequestPolicy, runInRequestScope } from '@ambient/http-context/internal';

test('httpContext takes sync and async listeners and returns a listener node:http accepts', () => {
  const listener = httpContext((_req, res) => void res.end());
  expect(listener).type.toBe<(req: IncomingMessage, res: ServerResponse<IncomingMessage>) => void>();
  expect(http.createServer).type.toBeCallableWith(listener);
  expect(httpContext).type.toBeCallableWith(async (_req: IncomingMessage, res: ServerResponse) => {
    res.end();
  });
  expect(httpContext).type.not.toBeCallableWith('not a listener');
});

test('options are typed, and misspelled or mistyped ones do not compile', () => {
  const listener = (_req: IncomingMessage, res: ServerResponse) => void res.end();
  expect(httpContext).type.toBeCallableWith(listener, {
    requestIdHeader: 'x-correlation-id',
    validateRequestId: (id: string) => id.length < 64,
    generateRequestId: () => 'id',
    echoRequestId: 'request-id',
    traceContext: false,
    propagation: { allowedOrigins: ['http://127.0.0.1:8080', new URL('https://api.example')] },
    onError: (error: unknown, _req: IncomingMessage, res: ServerResponse) => void res.end(String(error)),
  });
  expect(httpContext).type.toBeCallableWith(listener, {
    requestIdHeader: false,
    propagation: { allowedOrigins: (origin: string) => origin.endsWith('.internal') },
  });
  expect(httpContext).type.not.toBeCallableWith(listener, { requestIdHeader: true });
  expect(httpContext).type.not.toBeCallableWith(listener, { requestIDHeader: 'x-id' });
  expect(httpContext).type.not.toBeCallableWith(listener, { generateRequestId: () => 42 });
  expect(httpContext).type.not.toBeCallableWith(listener, { propagation: { allowedOrigins: [8080] } });
  expect(httpContext).type.not.toBeCallableWith(listener, { propagation: {} });
});

test('outgoingPropagation takes the propagation options and gives a disposer', () => {
  expect(outgoingPropagation({ allowedOrigins: ['http://127.0.0.1:8080'] })).type.toBe<OutgoingPropagation>();
  expect(outgoingPropagation).type.toBeCallableWith({ allowedOrigins: () => true, requestIdHeader: 'x-id' });
  expect(outgoingPropagation).type.not.toBeCallableWith({});
  expect(outgoingPropagation).type.not.toBeCallableWith({ allowedOrigins: [8080] });
});

test('the request store gains traceFlags; adapters get the policy and scope helpers', () => {
  expect(requestContext.get('traceFlags')).type.toBe<string | undefined>();
  const policy = createRequestPolicy({} satisfies HttpContextOptions, 'here');
  const req = new http.IncomingMessage(new Socket());
  expect(runInRequestScope).type.toBeCallableWith(req, new http.ServerResponse(req), policy, () => 1);
  expect(runInRequestScope).type.not.toBeCallableWith({}, {}, policy, () => 1);
  expect<HttpContextErrorCode>().type.toBe<'ERR_AMBIENT_HTTP_INVALID_OPTION' | 'ERR_AMBIENT_HTTP_INVALID_ARGUMENT'>();
});

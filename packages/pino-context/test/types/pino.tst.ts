import pino from 'pino';
import { pinoHttp } from 'pino-http';
import { expect, test } from 'tstyche';
import { correlationMixin, pinoHttpGenReqId, requestLogger, type CorrelationMixinOptions } from '@ambient/pino-context';

test("correlationMixin() fits pino's mixin option, with custom levels too", () => {
  expect(pino).type.toBeCallableWith({ mixin: correlationMixin() });
  expect(pino).type.toBeCallableWith({ customLevels: { audit: 35 }, mixin: correlationMixin() });
  expect(correlationMixin).type.toBeCallableWith({
    fields: { requestId: 'req_id', spanId: false },
  } satisfies CorrelationMixinOptions);
  expect(correlationMixin).type.not.toBeCallableWith({ fields: { requestId: 42 } });
  expect(correlationMixin).type.not.toBeCallableWith({ fields: { traceid: 'x' } });
});

test("the user's own mixin is typed by its own annotation", () => {
  expect(correlationMixin).type.toBeCallableWith({ mixin: (_merge: object, level: number) => ({ level }) });
  expect(correlationMixin).type.not.toBeCallableWith({ mixin: () => 'not an object' });
});

test('requestLogger(base) returns the type of base', () => {
  const logger = pino({ customLevels: { audit: 35 } });
  expect(requestLogger(logger)).type.toBe<typeof logger>();
  expect(requestLogger(logger).audit).type.toBeCallableWith('custom level kept');
  expect(requestLogger).type.not.toBeCallableWith({ info: () => undefined });
});

test("pinoHttpGenReqId fits pino-http's genReqId option", () => {
  expect(pinoHttp).type.toBeCallableWith({ genReqId: pinoHttpGenReqId });
});

import winston from 'winston';
import { expect, test } from 'tstyche';
import { correlationFormat, guardWinston, type CorrelationFormatOptions } from '@ambient/winston-context';

test("correlationFormat() is a winston format, for the logger's format and format.combine", () => {
  expect(winston.createLogger).type.toBeCallableWith({ format: correlationFormat() });
  expect(winston.format.combine).type.toBeCallableWith(correlationFormat(), winston.format.json());
  expect(correlationFormat).type.toBeCallableWith({
    fields: { requestId: 'req_id', spanId: false },
  } satisfies CorrelationFormatOptions);
  expect(correlationFormat).type.not.toBeCallableWith({ fields: { requestId: 42 } });
  expect(correlationFormat).type.not.toBeCallableWith({ fields: { traceid: 'x' } });
});

test('guardWinston() takes the winston module', () => {
  expect(guardWinston).type.toBeCallableWith({ winston });
  expect(guardWinston).type.not.toBeCallableWith(winston);
  expect(guardWinston).type.not.toBeCallableWith({ winston: {} });
  expect(guardWinston({ winston }).dispose).type.toBe<() => void>();
});

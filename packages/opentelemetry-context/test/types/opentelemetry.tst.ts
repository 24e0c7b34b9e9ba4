import type { LogRecordProcessor } from '@opentelemetry/sdk-logs';
import { ROOT_CONTEXT, context, type ContextManager } from '@opentelemetry/api';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { EventEmitter } from 'node:events';
import { expect, test } from 'tstyche';
import { AmbientContextManager, correlationLogProcessor } from '@ambient/opentelemetry-context';

test('AmbientContextManager is a ContextManager the SDK and the API accept', () => {
  expect(new AmbientContextManager()).type.toBeAssignableTo<ContextManager>();
  expect(new NodeTracerProvider().register).type.toBeCallableWith({ contextManager: new AmbientContextManager() });
  expect(context.setGlobalContextManager).type.toBeCallableWith(new AmbientContextManager());
});

test('with() and bind() keep the types of what they are given', () => {
  const manager = new AmbientContextManager();
  expect(manager.with(ROOT_CONTEXT, (a: number, b: string) => `${a}${b}`, undefined, 1, 'x')).type.toBe<string>();
  expect(manager.with).type.not.toBeCallableWith(ROOT_CONTEXT, (a: number) => a, undefined, 'not a number');
  expect(manager.bind(ROOT_CONTEXT, (n: number) => n * 2)).type.toBe<(n: number) => number>();
  expect(manager.bind(ROOT_CONTEXT, new EventEmitter())).type.toBe<EventEmitter>();
  expect(manager.enable()).type.toBe<AmbientContextManager>();
});

test("correlationLogProcessor() is a processor of the SDK's LoggerProvider", () => {
  expect<LogRecordProcessor>().type.toBeAssignableFrom(correlationLogProcessor());
  expect(correlationLogProcessor).type.toBeCallableWith({ fields: { traceId: 'trace.id', job: false } });
  expect(correlationLogProcessor).type.not.toBeCallableWith({ fields: { requestId: 1 } });
});

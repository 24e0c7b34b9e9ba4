import { expect, test } from 'tstyche';
import type { MessagePort } from 'node:worker_threads';
import type { Piscina } from 'piscina';
import workerpool from 'workerpool';
import {
  contextMethods,
  contextParams,
  contextTask,
  messageListener,
  taskHandler,
  type ContextParameter,
  type ContextTask,
} from '@ambient/threads-context';

declare const pool: Piscina;
declare const port: MessagePort;

test('contextTask keeps the task’s type, for any host that clones it', () => {
  expect(contextTask({ n: 1 })).type.toBe<ContextTask<{ n: number }>>();
  expect(contextTask({ n: 1 }).task).type.toBe<{ n: number }>();
  expect(pool.run).type.toBeCallableWith(contextTask({ n: 1 }));
  expect(port.postMessage).type.toBeCallableWith(contextTask('hello'));
});

test('taskHandler types the task it unwraps, and takes a wrapped or a plain one', () => {
  const handler = taskHandler(async (task: { n: number }) => task.n * 2);
  expect(handler).type.toBeCallableWith(contextTask({ n: 1 }));
  expect(handler).type.toBeCallableWith({ n: 1 });
  expect(handler).type.not.toBeCallableWith(contextTask('x'));
  expect(handler({ n: 1 })).type.toBe<Promise<number>>();
  expect(taskHandler).type.not.toBeCallableWith((task: number) => task, { queue: 'q' });
});

test("messageListener fits a port's 'message' listener", () => {
  port.on(
    'message',
    messageListener((message: { n: number }) => message.n),
  );
  expect(messageListener).type.not.toBeCallableWith('x');
});

test('contextParams appends one parameter; contextMethods keeps the methods’ types for workerpool.worker', () => {
  expect(contextParams([1, 'a'] as const)).type.toBe<[1, 'a', ContextParameter]>();
  const methods = contextMethods({ sum: (a: number, b: number) => a + b });
  expect(methods.sum).type.toBe<(a: number, b: number) => number>();
  expect(workerpool.worker).type.toBeCallableWith(methods);
  expect(workerpool.pool().exec).type.toBeCallableWith('sum', contextParams([1, 2]));
  expect(contextMethods).type.not.toBeCallableWith({ sum: 1 });
  expect(contextMethods).type.not.toBeCallableWith({}, { name: 'x' });
});

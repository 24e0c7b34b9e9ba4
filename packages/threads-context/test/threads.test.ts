// contextTask/contextParams and the thread-side wrappers in one thread, each message passed through
// structuredClone as a Worker's postMessage clones it. Real threads and pools: test/smoke/requests-to-threads.
import { AmbientError, requestContext } from '@ambient/core';
import {
  contextKey,
  contextMethods,
  contextParams,
  contextTask,
  messageListener,
  taskHandler,
} from '@ambient/threads-context';

const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const spanId = '00f067aa0ba902b7';
const uuidv7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const inRequest = <R>(fn: () => R): R =>
  requestContext.run({ requestId: 'req-1', correlationId: 'chain-1', traceId, spanId, traceFlags: '01' }, fn);
const seen = () => requestContext.snapshot();

describe('contextTask', () => {
  it('carries the sender’s scope across a structured clone', () => {
    const task = structuredClone(inRequest(() => contextTask({ n: 1 })));
    expect(task.task).toEqual({ n: 1 });
    expect(task[contextKey]).toEqual({
      'x-request-id': 'req-1',
      'x-correlation-id': 'chain-1',
      traceparent: `00-${traceId}-${spanId}-01`,
    });
  });

  it('carries no ids outside any scope', () => {
    expect(contextTask('x')[contextKey]).toEqual({});
  });
});

describe('taskHandler', () => {
  it('runs the task as a run of the request that sent it, the task unwrapped', async () => {
    const handler = taskHandler(async (task: { n: number }) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return { n: task.n, ...seen() };
    });
    const task = structuredClone(inRequest(() => contextTask({ n: 7 })));
    const run = await handler(task);
    expect(run).toMatchObject({
      n: 7,
      causationId: 'req-1',
      correlationId: 'chain-1',
      traceId,
      spanId,
      job: { name: 'task', system: 'worker_threads' },
    });
    expect(run.requestId).toMatch(uuidv7);
    expect(requestContext.active).toBe(false);
  });

  it('opens each run from the root, never inside the scope it is called in', () => {
    const handler = taskHandler(() => seen());
    const task = contextTask(1);
    const run = requestContext.run({ requestId: 'caller' }, () => handler(task));
    expect(run?.causationId).toBeUndefined();
    expect(run?.requestId).not.toBe('caller');
  });

  it('runs a task sent without contextTask as it is, as a new chain', () => {
    const handler = taskHandler((task: unknown) => ({ task, ...seen() }));
    const run = handler({ n: 1 });
    expect(run.task).toEqual({ n: 1 });
    expect(run.causationId).toBeUndefined();
    expect(run.job).toEqual({ name: 'task', system: 'worker_threads' });
    expect(handler(null).task).toBeNull();
  });

  it('reads the carried context by the carrier’s rules: bad ids and a throwing getter carry nothing', () => {
    const handler = taskHandler(() => seen());
    const forged = { task: 1, [contextKey]: { 'x-request-id': 'a\nb', traceparent: 'x' } };
    expect(handler(forged)).toMatchObject({ job: { name: 'task', system: 'worker_threads' } });
    expect(handler(forged)?.causationId).toBeUndefined();
    expect(handler(forged)?.traceId).toBeUndefined();
    const throwing = Object.defineProperty({ task: 1 }, contextKey, {
      enumerable: true,
      get() {
        throw new Error('getter');
      },
    });
    expect(handler(throwing)?.causationId).toBeUndefined();
    expect(handler({ task: 1, [contextKey]: 'text' })?.causationId).toBeUndefined();
  });

  it('takes name, link and generateRequestId, passes the rest and `this` on, and throws what the handler throws', async () => {
    const handler = taskHandler(
      function (this: unknown, task: number, extra: string) {
        return { task, extra, self: this, ...seen() };
      },
      { name: 'render', link: true, generateRequestId: () => 'run-1' },
    );
    const self = {};
    const run = inRequest(() => handler.call(self, contextTask(2), 'more'));
    expect(run).toMatchObject({ task: 2, extra: 'more', requestId: 'run-1', causationId: 'req-1' });
    expect(run.self).toBe(self);
    expect(run.traceId).toBeUndefined();
    expect(run.job?.name).toBe('render');
    const failing = taskHandler(async () => Promise.reject(new Error('task failed')));
    await expect(failing(contextTask(1))).rejects.toThrow('task failed');
  });

  it('refuses what is not a handler or options, with a code', () => {
    expect(() => taskHandler('x' as never)).toThrow(
      expect.objectContaining({ code: 'ERR_AMBIENT_THREADS_INVALID_ARGUMENT' }),
    );
    expect(() => taskHandler(() => 1, { queue: 'q' } as never)).toThrow(
      expect.objectContaining({ code: 'ERR_AMBIENT_THREADS_INVALID_OPTION' }),
    );
    expect(() => taskHandler(() => 1, { name: '' })).toThrow(AmbientError);
  });
});

describe('messageListener', () => {
  it('handles a message contextTask wrapped as a run of its sender, `this` passed on', () => {
    const port = {};
    const listener = messageListener(function (this: unknown, message: string) {
      return { message, port: this, ...seen() };
    });
    const run = listener.call(port, structuredClone(inRequest(() => contextTask('hello'))));
    expect(run).toMatchObject({ message: 'hello', causationId: 'req-1', job: { name: 'task' } });
    expect(run.port).toBe(port);
    expect(listener('plain').causationId).toBeUndefined();
  });

  it('refuses what is not a listener, with a code', () => {
    expect(() => messageListener(null as never)).toThrow(
      expect.objectContaining({ code: 'ERR_AMBIENT_THREADS_INVALID_ARGUMENT' }),
    );
  });
});

describe('contextParams and contextMethods', () => {
  it('adds the sender’s scope as a last parameter, which the method never sees', () => {
    const methods = contextMethods({
      sum(this: unknown, a: number, b: number) {
        return { sum: a + b, self: this, ...seen() };
      },
    });
    const params = structuredClone(inRequest(() => contextParams([1, 2] as const)));
    expect(params).toHaveLength(3);
    const self = {};
    const run = methods.sum.call(self, ...(params as unknown as [number, number]));
    expect(run).toMatchObject({ sum: 3, causationId: 'req-1', job: { name: 'sum', system: 'workerpool' } });
    expect(run.self).toBe(self);
  });

  it('runs a call without the parameter (a proxy, a plain exec) as a new chain, its parameters untouched', () => {
    const methods = contextMethods({ echo: (...params: unknown[]) => ({ params, ...seen() }) });
    expect(methods.echo(1, 2)).toMatchObject({ params: [1, 2], job: { name: 'echo', system: 'workerpool' } });
    expect(methods.echo().params).toEqual([]);
    expect(methods.echo().causationId).toBeUndefined();
  });

  it('takes link and generateRequestId', () => {
    const methods = contextMethods({ ids: () => seen() }, { link: true, generateRequestId: () => 'run-2' });
    const run = methods.ids(...(inRequest(() => contextParams([])) as unknown as []));
    expect(run).toMatchObject({ requestId: 'run-2', causationId: 'req-1' });
    expect(run?.traceId).toBeUndefined();
  });

  it('refuses what is not methods, parameters or options, with a code', () => {
    const code = (expected: string) => expect.objectContaining({ code: expected });
    expect(() => contextMethods(null as never)).toThrow(code('ERR_AMBIENT_THREADS_INVALID_ARGUMENT'));
    expect(() => contextMethods({ x: 1 } as never)).toThrow(code('ERR_AMBIENT_THREADS_INVALID_OPTION'));
    expect(() => contextMethods({}, { name: 'x' } as never)).toThrow(code('ERR_AMBIENT_THREADS_INVALID_OPTION'));
    expect(() => contextParams('x' as never)).toThrow(code('ERR_AMBIENT_THREADS_INVALID_ARGUMENT'));
  });
});

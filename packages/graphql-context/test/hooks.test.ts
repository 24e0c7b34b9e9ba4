// The hooks for graphql 16 hosts and runInOperation, called as their hosts call them, inside a request scope.
import { parse } from 'graphql';
import { requestContext } from '@ambient/core';
import {
  apolloOperationPlugin,
  mercuriusOperationHook,
  runInOperation,
  yogaOperationPlugin,
} from '@ambient/graphql-context';

const twoOperations = parse('query GetUser { a } mutation Rename { b }');

/** Calls `hook` as a host calls it, inside request `r`, and returns the operation current after it. */
async function operationAfter(hook: () => void | Promise<void>): Promise<unknown> {
  return requestContext.run({ requestId: 'r' }, async () => {
    await hook();
    return requestContext.get('operation');
  });
}

describe('apolloOperationPlugin()', () => {
  it("enters the resolved operation in executionDidStart, for the rest of Apollo's flow", async () => {
    const listener = await apolloOperationPlugin().requestDidStart();
    const operation = twoOperations.definitions[1] as never;
    expect(await operationAfter(() => listener.executionDidStart({ operation }))).toEqual({
      name: 'Rename',
      type: 'mutation',
    });
  });

  it('enters nothing where Apollo resolved no operation', async () => {
    const listener = await apolloOperationPlugin().requestDidStart();
    expect(await operationAfter(() => listener.executionDidStart({ operation: null }))).toBeUndefined();
    expect(await operationAfter(() => listener.executionDidStart({}))).toBeUndefined();
  });
});

describe('mercuriusOperationHook()', () => {
  const hook = mercuriusOperationHook();
  it('takes the only operation of a document, and else the operationName the request sent', async () => {
    expect(await operationAfter(() => hook({}, parse('{ a }'), {}))).toEqual({ type: 'query' });
    const sent = { reply: { request: { body: { operationName: 'Rename' } } } };
    expect(await operationAfter(() => hook({}, twoOperations, sent))).toEqual({ name: 'Rename', type: 'mutation' });
    const viaGet = { reply: { request: { body: undefined, query: { operationName: 'GetUser' } } } };
    expect(await operationAfter(() => hook({}, twoOperations, viaGet))).toEqual({ name: 'GetUser', type: 'query' });
  });

  it("reads a batch's entry (allowBatchedQueries) by the operationId Mercurius gives each operation", async () => {
    const body = [{ operationName: 'GetUser' }, { operationName: 'Rename' }];
    const second = { reply: { request: { body } }, operationId: 1 };
    expect(await operationAfter(() => hook({}, twoOperations, second))).toEqual({ name: 'Rename', type: 'mutation' });
    const noId = { reply: { request: { body } } };
    expect(await operationAfter(() => hook({}, twoOperations, noId))).toBeUndefined();
  });

  it('enters nothing where it cannot tell which operation runs', async () => {
    expect(await operationAfter(() => hook({}, twoOperations, {}))).toBeUndefined();
    expect(await operationAfter(() => hook({}, twoOperations, undefined as never))).toBeUndefined();
    expect(await operationAfter(() => hook({}, { definitions: 'none' } as never, {}))).toBeUndefined();
    const unknown = { reply: { request: { body: { operationName: 'Missing' } } } };
    expect(await operationAfter(() => hook({}, twoOperations, unknown))).toBeUndefined();
  });

  it('changes nothing outside any request scope', () => {
    hook({}, parse('{ a }'), {});
    expect(requestContext.active).toBe(false);
  });
});

describe('yogaOperationPlugin()', () => {
  /** Runs envelop's onExecute protocol: the hook may replace the execute function, which is then called. */
  function execute(args: { document: never; operationName?: string }) {
    let executeFn = (_: unknown) => requestContext.get('operation');
    yogaOperationPlugin().onExecute({ args, executeFn, setExecuteFn: (fn) => (executeFn = fn as typeof executeFn) });
    return executeFn(args);
  }

  it('wraps the execution in the operation the request selects', () => {
    const selected = requestContext.run({ requestId: 'r' }, () =>
      execute({ document: twoOperations as never, operationName: 'GetUser' }),
    );
    expect(selected).toEqual({ name: 'GetUser', type: 'query' });
  });

  it('leaves the execute function as it is outside any request or without an operation', () => {
    expect(execute({ document: parse('{ a }') as never })).toBeUndefined();
    const none = requestContext.run({ requestId: 'r' }, () => execute({ document: twoOperations as never }));
    expect(none).toBeUndefined();
  });
});

describe('runInOperation(operation, fn, ...args)', () => {
  it('runs fn with its arguments in a copy of the request scope holding the operation', () => {
    requestContext.run({ requestId: 'r' }, () => {
      const result = runInOperation(
        { name: 'GetUser', type: 'query' },
        (a: number, b: string) => [a, b, requestContext.snapshot()],
        1,
        'two',
      );
      expect(result).toEqual([1, 'two', { requestId: 'r', operation: { name: 'GetUser', type: 'query' } }]);
      expect(requestContext.get('operation')).toBeUndefined();
    });
  });

  it('runs fn as it is outside any request scope', () => {
    expect(runInOperation({ type: 'mutation' }, () => requestContext.active)).toBe(false);
  });

  const one = (): number => 1;
  it.each<[unknown, unknown]>([
    [null, one],
    [{ type: 'delete' }, one],
    [{ name: 42, type: 'query' }, one],
    [{ type: 'query' }, 'not a function'],
  ])('rejects %p, %p with ERR_AMBIENT_GRAPHQL_INVALID_ARGUMENT', (operation, fn) => {
    expect(() => runInOperation(operation as never, fn as never)).toThrow(
      expect.objectContaining({ code: 'ERR_AMBIENT_GRAPHQL_INVALID_ARGUMENT' }),
    );
  });
});

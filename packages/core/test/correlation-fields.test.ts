import { requestContext } from '@ambient/core';
import {
  addLineFields,
  captureRequestScopeWith,
  correlationFields,
  lineContext,
  resolveFieldNames,
  runInCapturedContext,
} from '@ambient/core/internal';

const errors = { option: () => new Error('bad option') } as never;
const operation = { name: 'GetUser', type: 'query' } as const;

/** Runs `fn` in a GraphQL operation's scope of request `r`, as @ambient/graphql-context enters it. */
const inOperation = <R>(fn: () => R): R =>
  requestContext.run({ requestId: 'r' }, () => runInCapturedContext(captureRequestScopeWith({ operation }), fn));

describe('the operation field of a log line', () => {
  it('is written under its default name by addLineFields and correlationFields', () => {
    const names = resolveFieldNames(undefined, 'test', errors);
    inOperation(() => {
      const line: Record<string, unknown> = {};
      addLineFields(line, names, lineContext()!);
      expect(line).toEqual({ requestId: 'r', operation });
      expect(correlationFields(names)).toEqual({ requestId: 'r', operation });
    });
  });

  it('keeps a value the line has, takes another name, and is left out with false', () => {
    const renamed = resolveFieldNames({ operation: 'graphql' }, 'test', errors);
    const without = resolveFieldNames({ operation: false }, 'test', errors);
    inOperation(() => {
      const line: Record<string, unknown> = { graphql: 'mine' };
      addLineFields(line, renamed, lineContext()!);
      expect(line).toEqual({ requestId: 'r', graphql: 'mine' });
      const defaultLine: Record<string, unknown> = { operation: 'mine' };
      addLineFields(defaultLine, resolveFieldNames(undefined, 'test', errors), lineContext()!);
      expect(defaultLine).toEqual({ requestId: 'r', operation: 'mine' });
      expect(correlationFields(renamed)).toEqual({ requestId: 'r', graphql: operation });
      expect(correlationFields(without)).toEqual({ requestId: 'r' });
      const omitted: Record<string, unknown> = {};
      addLineFields(omitted, without, lineContext()!);
      expect(omitted).toEqual({ requestId: 'r' });
    });
  });

  it('is absent outside an operation', () => {
    const names = resolveFieldNames(undefined, 'test', errors);
    requestContext.run({ requestId: 'r' }, () => expect(correlationFields(names)).toEqual({ requestId: 'r' }));
  });
});

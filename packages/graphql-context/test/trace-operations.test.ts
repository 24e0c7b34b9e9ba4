// traceGraphQLOperations() against graphql 17's TracingChannels, published here as graphql publishes them
// (start.runStores around the traced call): on every Node, graphql 17 itself or not.
import { tracingChannel } from 'node:diagnostics_channel';
import { requestContext } from '@ambient/core';
import { traceGraphQLOperations } from '@ambient/graphql-context';

/** Runs `fn` as graphql's traceMixed does: inside `start.runStores` of the channel named `name`. */
function traced<R>(name: string, message: object, fn: () => R): R {
  return tracingChannel(name).traceSync(fn, message);
}

const rootSelectionSet = 'graphql:execute:rootSelectionSet';

describe('traceGraphQLOperations()', () => {
  it('runs a traced execution in a copy of the request scope that holds the operation, never the variables', async () => {
    const tracing = traceGraphQLOperations();
    try {
      expect(tracing.channels).toEqual([rootSelectionSet, 'graphql:subscribe']);
      await requestContext.run({ requestId: 'req-1' }, async () => {
        const message = { operationName: 'GetUser', operationType: 'query', rawVariableValues: { secret: 's' } };
        const inside = await traced(rootSelectionSet, message, async () => {
          await new Promise((resolve) => setTimeout(resolve, 1));
          return requestContext.snapshot();
        });
        expect(inside).toEqual({ requestId: 'req-1', operation: { name: 'GetUser', type: 'query' } });
        expect(requestContext.snapshot()).toEqual({ requestId: 'req-1' });
      });
    } finally {
      tracing.dispose();
    }
  });

  it('reads the lazy operation of graphql:subscribe', () => {
    const tracing = traceGraphQLOperations();
    try {
      const message = {
        get operationName() {
          return 'Ticks';
        },
        get operationType() {
          return 'subscription';
        },
      };
      const operation = requestContext.run({ requestId: 'r' }, () =>
        traced('graphql:subscribe', message, () => requestContext.get('operation')),
      );
      expect(operation).toEqual({ name: 'Ticks', type: 'subscription' });
    } finally {
      tracing.dispose();
    }
  });

  it.each([
    ['an anonymous operation', { operationType: 'mutation' }, { type: 'mutation' }],
    ['a name no log line should hold', { operationName: 'a\nb', operationType: 'query' }, { type: 'query' }],
    ['a name over 256 characters', { operationName: 'x'.repeat(257), operationType: 'query' }, { type: 'query' }],
    [
      'a name of 256 characters',
      { operationName: 'x'.repeat(256), operationType: 'query' },
      { name: 'x'.repeat(256), type: 'query' },
    ],
    ['no operation type', { operationName: 'Unknown' }, undefined],
    ['an unknown operation type', { operationName: 'X', operationType: 'delete' }, undefined],
  ])('%s', (_, message, expected) => {
    const tracing = traceGraphQLOperations();
    try {
      const operation = requestContext.run({ requestId: 'r' }, () =>
        traced(rootSelectionSet, message, () => requestContext.get('operation')),
      );
      expect(operation).toEqual(expected);
    } finally {
      tracing.dispose();
    }
  });

  it('leaves the context as it is outside any request, and when reading the operation throws', () => {
    const tracing = traceGraphQLOperations();
    try {
      expect(traced(rootSelectionSet, { operationType: 'query' }, () => requestContext.active)).toBe(false);
      const throwing = {
        get operationType(): string {
          throw new Error('broken getter');
        },
      };
      const inside = requestContext.run({ requestId: 'r' }, () =>
        traced(rootSelectionSet, throwing, () => requestContext.snapshot()),
      );
      expect(inside).toEqual({ requestId: 'r' });
    } finally {
      tracing.dispose();
    }
  });

  it('is one binding per process: a second call returns it, and dispose() unbinds once', () => {
    const tracing = traceGraphQLOperations();
    expect(traceGraphQLOperations()).toBe(tracing);
    tracing.dispose();
    tracing.dispose();
    const operation = requestContext.run({ requestId: 'r' }, () =>
      traced(rootSelectionSet, { operationType: 'query' }, () => requestContext.get('operation')),
    );
    expect(operation).toBeUndefined();
    const again = traceGraphQLOperations();
    expect(again).not.toBe(tracing);
    again.dispose();
  });
});

import { runInCapturedContext, type CapturedContext } from '@ambient/core/internal';
import { errors } from './errors.js';
import { operationIn, operationScope, type DocumentLike } from './operation.js';

/** The part of graphql's ExecutionArgs read here: what graphql-ws hands its `execute` and `subscribe`. */
interface ExecutionArgsLike {
  readonly document?: DocumentLike;
  readonly operationName?: string | null;
}

/** graphql's `execute` and `subscribe` (16 or 17), or functions of the same shape. */
export interface GraphQLExecutors<E extends (args: never) => unknown, S extends (args: never) => unknown> {
  readonly execute: E;
  readonly subscribe: S;
}

/**
 * graphql-ws's `execute` and `subscribe` options (`useServer({ schema, ...graphqlWsOperations({ execute,
 * subscribe }) }, wss)`): each operation over a WebSocket runs in a copy of its message's scope that holds the
 * operation, and so is each event of a subscription, which graphql computes where graphql-ws pulls it. graphql-ws
 * has no hook that could enter it (enisdenjo/graphql-ws#658); with graphql 17, traceGraphQLOperations() does
 * without this. The message's scope comes from `scopeWebSocketServer()` of `@ambient/ws-context`.
 */
export function graphqlWsOperations<E extends (args: never) => unknown, S extends (args: never) => unknown>(
  graphql: GraphQLExecutors<E, S>,
): GraphQLExecutors<E, S> {
  const where = 'graphqlWsOperations({ execute, subscribe })';
  const { execute, subscribe } = (graphql ?? {}) as Partial<GraphQLExecutors<E, S>>;
  if (typeof execute !== 'function' || typeof subscribe !== 'function') {
    throw errors.invalidArgument(where, "graphql's { execute, subscribe }", graphql);
  }
  const executeInOperation = (args: ExecutionArgsLike): unknown => {
    const captured = capturedFor(args);
    return captured === undefined
      ? call(execute, args)
      : runInCapturedContext(captured, call, undefined, [execute, args]);
  };
  const subscribeInOperation = (args: ExecutionArgsLike): unknown => {
    const captured = capturedFor(args);
    if (captured === undefined) return call(subscribe, args);
    const result = runInCapturedContext(captured, call, undefined, [subscribe, args]);
    return isPromiseLike(result)
      ? Promise.resolve(result).then((settled) => eventsIn(captured, settled))
      : eventsIn(captured, result);
  };
  return { execute: executeInOperation as unknown as E, subscribe: subscribeInOperation as unknown as S };
}

function capturedFor(args: ExecutionArgsLike): CapturedContext | undefined {
  return operationScope(operationIn(args.document, args.operationName));
}

function call(fn: (args: never) => unknown, args: ExecutionArgsLike): unknown {
  return fn(args as never);
}

/**
 * A subscription's event stream, each `next()` (where graphql computes the event) in the operation's scope, and
 * `return()` (graphql-ws's end of a subscription) handed on.
 */
function eventsIn(captured: CapturedContext, result: unknown): unknown {
  if (typeof result !== 'object' || result === null || !(Symbol.asyncIterator in result)) return result; // errors
  const events = result as AsyncIterator<unknown> & AsyncIterable<unknown>;
  const inOperation: AsyncIterableIterator<unknown> = {
    next: () => runInCapturedContext(captured, () => events.next(), undefined, []),
    return: (value?: unknown) => events.return?.(value) ?? Promise.resolve({ done: true, value }),
    [Symbol.asyncIterator]: () => inOperation,
  };
  return inOperation;
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

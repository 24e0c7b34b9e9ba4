import type { RequestStore } from '@ambient/core';
import {
  captureRequestScopeWith,
  enterCapturedContext,
  runInCapturedContext,
  type CapturedContext,
} from '@ambient/core/internal';
import { errors } from './errors.js';

/** The operation a GraphQL execution serves, as every log line of its resolvers shows it. */
export type OperationInfo = NonNullable<RequestStore['operation']>;

export type OperationType = OperationInfo['type'];

const isOperationType = (type: unknown): type is OperationType =>
  type === 'query' || type === 'mutation' || type === 'subscription';

/** A name a log line may show: printable ASCII, 256 characters at most (a GraphQL name always is). */
const isPrintableName = (name: unknown): name is string =>
  typeof name === 'string' && name.length > 0 && name.length <= 256 && /^[\x20-\x7e]+$/.test(name);

/** The operation of a name and a type as graphql reports them, or `undefined` for a type that is none. */
export function operationInfo(name: unknown, type: unknown): OperationInfo | undefined {
  if (!isOperationType(type)) return undefined;
  return Object.freeze(isPrintableName(name) ? { name, type } : { type });
}

/** The part of a graphql `DocumentNode` read here, from any graphql version. */
export interface DocumentLike {
  readonly definitions: ReadonlyArray<{
    readonly kind: string;
    readonly operation?: string;
    readonly name?: { readonly value: string } | null;
  }>;
}

/**
 * The operation `operationName` selects in `document` (graphql's getOperationAST, read off the AST so that no
 * graphql copy is loaded here): the one so named, or the only one where no name is given.
 */
export function operationIn(document: DocumentLike | undefined, operationName: unknown): OperationInfo | undefined {
  const definitions = document?.definitions;
  if (!Array.isArray(definitions)) return undefined;
  const operations = (definitions as DocumentLike['definitions']).filter(
    (definition) => definition.kind === 'OperationDefinition',
  );
  const named = typeof operationName === 'string' && operationName !== '';
  const chosen = named
    ? operations.find((definition) => definition.name?.value === operationName)
    : operations.length === 1
      ? operations[0]
      : undefined;
  return chosen === undefined ? undefined : operationInfo(chosen.name?.value, chosen.operation);
}

/**
 * A copy of the current request's scope holding `operation`, to run the operation's execution in; `undefined`
 * where there is no operation or no request scope (the execution then runs as it is).
 */
export function operationScope(operation: OperationInfo | undefined): CapturedContext | undefined {
  return operation === undefined ? undefined : captureRequestScopeWith({ operation });
}

/**
 * Makes the rest of the host's flow that called this (its execution of the operation) run in a copy of the
 * request's scope holding `operation`. For hooks a host calls on its own stack just before it executes, where
 * nothing can be wrapped; outside any request scope, or on the AsyncContext backend, nothing changes.
 */
export function enterOperation(operation: OperationInfo | undefined): void {
  const captured = operationScope(operation);
  if (captured !== undefined) enterCapturedContext(captured);
}

/**
 * Calls `fn(...args)` in a copy of the current request's scope holding `operation` (`{ name?, type }`), so that
 * every log line inside says which GraphQL operation it served; the request's own scope is left as it was.
 * Outside any request scope `fn` runs as it is. For a host this package has no hook for: wrap its call of
 * graphql's `execute`.
 */
export function runInOperation<R, A extends unknown[]>(
  operation: { readonly name?: string; readonly type: OperationType },
  fn: (...args: A) => R,
  ...args: A
): R {
  const where = 'runInOperation(operation, fn)';
  const given = operation as { name?: unknown; type?: unknown } | null | undefined;
  if (typeof given !== 'object' || given === null || !isOperationType(given.type)) {
    throw errors.invalidArgument(
      where,
      "an operation { name?: string, type: 'query' | 'mutation' | 'subscription' }",
      operation,
    );
  }
  if (given.name !== undefined && typeof given.name !== 'string') {
    throw errors.invalidArgument(`${where}: operation.name`, 'a string or undefined', given.name);
  }
  if (typeof fn !== 'function') throw errors.invalidArgument(where, 'a function', fn);
  const captured = operationScope(operationInfo(given.name, given.type));
  return captured === undefined ? fn(...args) : runInCapturedContext(captured, fn, undefined, args);
}

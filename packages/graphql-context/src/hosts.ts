import { runInCapturedContext } from '@ambient/core/internal';
import { enterOperation, operationIn, operationInfo, operationScope, type DocumentLike } from './operation.js';

/** The part of Apollo Server's GraphQLRequestContext read here. */
export interface ApolloRequestContextLike {
  readonly operation?: { readonly operation: string; readonly name?: { readonly value: string } | null } | null;
}

/** An Apollo Server 4/5 plugin (`ApolloServerPlugin`), for `new ApolloServer({ plugins: [...] })`. */
export interface ApolloOperationPlugin {
  requestDidStart(): Promise<{ executionDidStart(requestContext: ApolloRequestContextLike): Promise<void> }>;
}

/**
 * For Apollo Server's `plugins`: each operation's resolvers run in a copy of the request's scope that holds the
 * operation. Apollo calls `executionDidStart` on the stack that goes on to execute (its plugins cannot wrap the
 * execution), so the operation is entered there, for the rest of that operation only: the hook is a plain
 * function that returns a promise on purpose, since an async one would enter it in its own continuation.
 */
export function apolloOperationPlugin(): ApolloOperationPlugin {
  const listener = {
    executionDidStart(requestContext: ApolloRequestContextLike): Promise<void> {
      const operation = requestContext.operation;
      if (operation != null) enterOperation(operationInfo(operation.name?.value, operation.operation));
      return Promise.resolve();
    },
  };
  return { requestDidStart: () => Promise.resolve(listener) };
}

/** The execute function of GraphQL Yoga's (envelop's) `onExecute`. */
type ExecuteFn = (args: { document: DocumentLike; operationName?: string | null }) => unknown;

/** A GraphQL Yoga (envelop) plugin, for `createYoga({ plugins: [...] })`. */
export interface YogaOperationPlugin {
  onExecute(payload: {
    args: { document: DocumentLike; operationName?: string | null };
    executeFn: ExecuteFn;
    setExecuteFn: (executeFn: ExecuteFn) => void;
  }): void;
}

/**
 * For GraphQL Yoga's `plugins`: each operation's execution runs in a copy of the request's scope that holds the
 * operation, by wrapping the execute function envelop hands its plugins.
 */
export function yogaOperationPlugin(): YogaOperationPlugin {
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      const captured = operationScope(operationIn(args.document, args.operationName));
      if (captured === undefined) return;
      setExecuteFn((executeArgs) => runInCapturedContext(captured, executeFn, undefined, [executeArgs]));
    },
  };
}

/** The part of Mercurius's context read here: its reply, for the operation name a request sent. */
interface MercuriusContextLike {
  readonly reply?: { readonly request?: { readonly body?: unknown; readonly query?: unknown } };
  /** In a batch (`allowBatchedQueries`), the index of this operation's entry in the body. */
  readonly operationId?: unknown;
}

/** The `operationName` a request to Mercurius sent for this operation: in its body (a batch's entry), or query. */
function sentOperationName(context: MercuriusContextLike | undefined): unknown {
  const request = context?.reply?.request;
  const body = request?.body;
  const sent: unknown = Array.isArray(body)
    ? body[typeof context?.operationId === 'number' ? context.operationId : -1]
    : (body ?? request?.query);
  return typeof sent === 'object' && sent !== null ? (sent as { operationName?: unknown }).operationName : undefined;
}

/** A Mercurius `preExecution` hook, for `app.graphql.addHook('preExecution', ...)`. */
export type MercuriusOperationHook = (schema: unknown, document: DocumentLike, context: MercuriusContextLike) => void;

/**
 * For Mercurius's `preExecution` hook: the operation's execution runs in a copy of the request's scope that
 * holds the operation. Mercurius hooks cannot wrap the execution; it calls its first `preExecution` hook on
 * the stack that goes on to execute, so register this one before any other (a later one runs in a continuation
 * of Mercurius's hook runner, and what it enters stays there).
 */
export function mercuriusOperationHook(): MercuriusOperationHook {
  return (_schema, document, context) => {
    // Mercurius hands its hooks no operation name: a document of one operation needs none, else the request's.
    let operation = operationIn(document, undefined);
    if (operation === undefined) operation = operationIn(document, sentOperationName(context));
    enterOperation(operation);
  };
}

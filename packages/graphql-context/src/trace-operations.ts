import {
  bindChannelContext,
  captureContext,
  keptTracingChannel,
  sharedState,
  type CapturedContext,
} from '@ambient/core/internal';
import { operationInfo, operationScope } from './operation.js';

/** What traceGraphQLOperations() turned on; dispose() turns it off. */
export interface GraphQLTracing {
  /** The graphql TracingChannels bound: none on the AsyncContext backend, where no channel can enter a scope. */
  readonly channels: readonly string[];
  dispose(): void;
}

/**
 * graphql 17's own TracingChannels (graphql/graphql-js `src/diagnostics.ts`), each traced with
 * `start.runStores`: a store bound to `start` is what the traced call runs in. `rootSelectionSet` wraps the
 * execution of an operation's fields (each event of a subscription too) and names the operation after
 * validation; `subscribe` wraps the subscription's own resolver, which opens its event stream.
 */
const tracedChannels = ['graphql:execute:rootSelectionSet', 'graphql:subscribe'];

/** One binding per process, whichever copy of this package made it (two would bind every channel twice). */
const active = sharedState<{ tracing: GraphQLTracing | undefined }>('@ambient/graphql-context.tracing', () => ({
  tracing: undefined,
}));

/**
 * The context a traced graphql call runs in: the request's scope with the operation added, or the current one
 * unchanged where there is no request or no operation. Never throws: a throw in a store transform is an
 * uncaught exception in Node, and the call would run outside its request.
 */
function tracedCallScope(message: unknown): CapturedContext | undefined {
  try {
    const traced = message as { operationName?: unknown; operationType?: unknown };
    const operation = operationInfo(traced.operationName, traced.operationType);
    return operationScope(operation) ?? captureContext();
  } catch {
    return captureContext();
  }
}

/**
 * One call at startup, for graphql 17: every operation graphql executes runs in a copy of its request's scope
 * that holds `operation: { name, type }` (never the variables), so every log line of its resolvers says which
 * operation it served. The request's own scope is left as it was: a batch of operations in one HTTP request
 * each get their own. A second call returns the tracing that is on; dispose() unbinds.
 */
export function traceGraphQLOperations(): GraphQLTracing {
  const on = active.tracing;
  if (on !== undefined) return on;
  const unbinds: Array<() => void> = [];
  for (const name of tracedChannels) {
    const unbind = bindChannelContext(keptTracingChannel(name).start, tracedCallScope);
    if (unbind !== undefined) unbinds.push(unbind);
  }
  const tracing: GraphQLTracing = {
    channels: unbinds.length === 0 ? [] : tracedChannels,
    dispose() {
      if (active.tracing !== tracing) return;
      active.tracing = undefined;
      for (const unbind of unbinds) unbind();
    },
  };
  active.tracing = tracing;
  return tracing;
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MiddlewareHandler } from 'hono';
import { requestContext } from '@ambient/core';
import type { RequestContextOptions } from '@ambient/http-context';
import { createRequestPolicy, runInFetchRequestScope, runInRequestScope } from '@ambient/http-context/internal';

export type HonoContextOptions = RequestContextOptions;

/** The variables honoContext sets on Hono's context: `c.var.requestId` is the request's Ambient id. */
export interface HonoContextVariables {
  requestId: string;
}

declare module 'hono' {
  interface ContextVariableMap {
    /** The request's id, as Ambient's rules chose it (the same as `requestContext.get('requestId')`). */
    requestId: string;
  }
}

/** What `@hono/node-server` passes as `c.env` (its `HttpBindings`, or `Http2Bindings`). */
interface NodeBindings {
  readonly incoming: IncomingMessage;
  readonly outgoing: ServerResponse;
}

/**
 * Hono middleware: the rest of the chain, its error and not-found handlers run in the request's requestContext
 * scope, and `c.var.requestId` is the request's Ambient id. On `@hono/node-server` the scope is opened on Node's
 * own request and response (listeners on them are bound, the id is echoed on the response whatever the handler
 * returns); elsewhere (`app.request()` in tests, another runtime) from the Request's headers.
 */
export function honoContext(options?: HonoContextOptions): MiddlewareHandler<{ Variables: HonoContextVariables }> {
  const policy = createRequestPolicy(options, 'honoContext(options)');
  const echoHeader = policy.echoHeader;
  return function ambientHonoContext(c, next) {
    const bindings = nodeBindings(c.env);
    if (bindings !== undefined) {
      return runInRequestScope(bindings.incoming, bindings.outgoing, policy, () => {
        c.set('requestId', requestContext.require('requestId'));
        return next();
      });
    }
    return runInFetchRequestScope(c.req.raw.headers, policy, async (requestId) => {
      c.set('requestId', requestId);
      await next();
      // After the handler: a header set before it is lost when it returns a Response of its own making.
      if (echoHeader !== undefined && !c.res.headers.has(echoHeader)) c.header(echoHeader, requestId);
    });
  };
}

/** Node's request and response, when `@hono/node-server` serves the app (its `c.env`). */
function nodeBindings(env: unknown): NodeBindings | undefined {
  if (typeof env !== 'object' || env === null) return undefined;
  const { incoming, outgoing } = env as Partial<Record<keyof NodeBindings, unknown>>;
  if (
    typeof incoming === 'object' &&
    incoming !== null &&
    Array.isArray((incoming as Partial<IncomingMessage>).rawHeaders) &&
    typeof outgoing === 'object' &&
    outgoing !== null &&
    typeof (outgoing as Partial<ServerResponse>).setHeader === 'function'
  ) {
    return { incoming: incoming as IncomingMessage, outgoing: outgoing as ServerResponse };
  }
  return undefined;
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import { bindEmitter, requestContext, type RequestStore } from '@ambient/core';
import type { RequestPolicy } from './options.js';
import { runWithOutgoingPolicy } from './propagation.js';
import { parseTraceParent } from './trace-context.js';

declare module '@ambient/core' {
  interface RequestStore {
    /** The incoming traceparent's trace-flags, passed on to outgoing requests. */
    traceFlags?: string;
  }
}

/** The values a request's scope starts with: its request id (incoming and valid, or new) and its trace. */
export function requestValues(req: IncomingMessage, policy: RequestPolicy): RequestStore {
  const values: RequestStore = { requestId: incomingRequestId(req, policy) ?? policy.generate() };
  if (policy.traceContext) {
    const traceparent = req.headers.traceparent;
    const parsed = typeof traceparent === 'string' ? parseTraceParent(traceparent) : undefined;
    if (parsed !== undefined) {
      values.traceId = parsed.traceId;
      values.spanId = parsed.parentId;
      values.traceFlags = parsed.traceFlags;
    }
  }
  return values;
}

function incomingRequestId(req: IncomingMessage, policy: RequestPolicy): string | undefined {
  if (policy.incomingHeader === undefined) return undefined;
  const value = req.headers[policy.incomingHeader];
  if (typeof value !== 'string' || !policy.validate(value)) return undefined;
  // A header sent twice arrives joined by ", "; a custom validator may accept that, the id is still ambiguous.
  if (value.includes(',') && (req.headersDistinct[policy.incomingHeader]?.length ?? 0) > 1) return undefined;
  return value;
}

/**
 * Runs `fn` in a new requestContext scope for this request, for its whole life. Listeners later added on
 * `req` and `res` run in the scope too: otherwise `data`/`end` run in the HTTP parser's context and
 * `finish`/`close` in the socket's (nodejs/node#41285, nodejs/node#33723, expressjs/body-parser#422).
 */
export function runInRequestScope<R>(req: IncomingMessage, res: ServerResponse, policy: RequestPolicy, fn: () => R): R {
  const values = requestValues(req, policy);
  if (policy.echoHeader !== undefined && !res.headersSent) res.setHeader(policy.echoHeader, values.requestId);
  bindEmitter(req);
  bindEmitter(res);
  if (policy.propagation === undefined) return requestContext.run(values, fn);
  return runWithOutgoingPolicy(policy.propagation, () => requestContext.run(values, fn));
}

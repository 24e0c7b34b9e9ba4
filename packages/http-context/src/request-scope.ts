import type { IncomingMessage, ServerResponse } from 'node:http';
import { bindEmitter, requestContext, type RequestStore } from '@ambient/core';
import { diagnosticsProbe, type DiagnosticsProbe } from '@ambient/core/internal';
import { carrierKeys, isValidTraceState, parseTraceParent, readBaggage } from '@ambient/correlation';
import type { RequestPolicy } from './options.js';
import { runWithOutgoingPolicy } from './propagation.js';

/**
 * The request id Ambient's rules give a request before its scope opens: the incoming header when it was sent
 * exactly once and passes `validateRequestId`, else a new one. For frameworks that must know the id earlier
 * than the scope (fastify calls `genReqId` before any hook).
 */
export function requestIdFor(rawHeaders: readonly string[], policy: RequestPolicy): string {
  return validOrNew(readIncoming(rawHeaders, policy.incomingHeader, false, false, false).requestId, policy);
}

function validOrNew(incoming: string | undefined, policy: RequestPolicy): string {
  return incoming !== undefined && policy.validate(incoming) ? incoming : policy.generate();
}

/**
 * The values a request's scope starts with, from its raw headers (`req.rawHeaders`' name, value, name, ... list):
 * its request id (incoming and valid, or new), the correlation id of the chain it belongs to (`x-correlation-id`,
 * by the same rule as request ids), and its trace. For doors that open their own scope (a WebSocket upgrade, a
 * fetch-style Request).
 */
export function requestValuesFor(
  rawHeaders: readonly string[],
  policy: RequestPolicy,
  requestId?: string,
): RequestStore {
  // With an id already chosen (fastify's), only the correlation id and the trace are looked for.
  const incoming = readIncoming(
    rawHeaders,
    requestId === undefined ? policy.incomingHeader : undefined,
    policy.correlation,
    policy.traceContext,
    policy.baggage,
  );
  const values: RequestStore = { requestId: requestId ?? validOrNew(incoming.requestId, policy) };
  if (incoming.correlationId !== undefined && policy.validate(incoming.correlationId)) {
    values.correlationId = incoming.correlationId;
  }
  if (incoming.baggage !== undefined) {
    const carried = readBaggage(incoming.baggage, policy.validate);
    if (values.correlationId === undefined && policy.correlation && carried.correlationId !== undefined) {
      values.correlationId = carried.correlationId;
    }
    if (carried.causationId !== undefined) values.causationId = carried.causationId;
  }
  if (incoming.traceparent !== undefined) {
    const parsed = parseTraceParent(incoming.traceparent);
    if (parsed !== undefined) {
      values.traceId = parsed.traceId;
      values.spanId = parsed.parentId;
      values.traceFlags = parsed.traceFlags;
      if (incoming.tracestate !== undefined && isValidTraceState(incoming.tracestate)) {
        values.traceState = incoming.tracestate;
      }
    }
  }
  return values;
}

interface IncomingIds {
  readonly requestId: string | undefined;
  readonly correlationId: string | undefined;
  readonly traceparent: string | undefined;
  readonly tracestate: string | undefined;
  readonly baggage: string | undefined;
}

const noIncomingIds: IncomingIds = {
  requestId: undefined,
  correlationId: undefined,
  traceparent: undefined,
  tracestate: undefined,
  baggage: undefined,
};

const correlationHeader = carrierKeys.correlationId;

/**
 * One pass over `rawHeaders` for the headers Ambient reads. Reading `req.headers` instead would make Node build
 * the whole headers object, which it does lazily, on every request, whether the app needs it or not. A header
 * sent more than once counts as absent: the id or trace it names is ambiguous. Names are compared by length
 * first, so most headers cost one comparison.
 */
function readIncoming(
  rawHeaders: readonly string[],
  idHeader: string | undefined,
  wantCorrelation: boolean,
  wantTrace: boolean,
  wantBaggage: boolean,
): IncomingIds {
  if (idHeader === undefined && !wantCorrelation && !wantTrace && !wantBaggage) return noIncomingIds;
  let requestId: string | undefined;
  let idCount = 0;
  let correlationId: string | undefined;
  let correlationCount = 0;
  let traceparent: string | undefined;
  let traceCount = 0;
  let tracestate: string | undefined;
  let stateCount = 0;
  let baggage: string | undefined;
  let baggageCount = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    const length = name.length;
    if (idHeader !== undefined && length === idHeader.length && isHeader(name, idHeader)) {
      requestId = rawHeaders[i + 1];
      idCount++;
    } else if (wantCorrelation && length === 16 && isHeader(name, correlationHeader)) {
      correlationId = rawHeaders[i + 1];
      correlationCount++;
    } else if (wantTrace && length === 11 && isHeader(name, 'traceparent')) {
      traceparent = rawHeaders[i + 1];
      traceCount++;
    } else if (wantTrace && length === 10 && isHeader(name, 'tracestate')) {
      tracestate = rawHeaders[i + 1];
      stateCount++;
    } else if (wantBaggage && length === 7 && isHeader(name, 'baggage')) {
      baggage = rawHeaders[i + 1];
      baggageCount++;
    }
  }
  // Most requests bring none of them: no object for those.
  if (idCount + correlationCount + traceCount + stateCount + baggageCount === 0) return noIncomingIds;
  return {
    requestId: idCount === 1 ? requestId : undefined,
    correlationId: correlationCount === 1 ? correlationId : undefined,
    traceparent: traceCount === 1 ? traceparent : undefined,
    tracestate: stateCount === 1 ? tracestate : undefined,
    // W3C Baggage allows a header sent more than once (to be joined); Ambient's members then count as absent.
    baggage: baggageCount === 1 ? baggage : undefined,
  };
}

/**
 * Is the raw header name `name` the lowercase name `lower` of the same length? The first letters are compared
 * before the whole name is lowercased (a new string): nearly every request sends `Connection`, as long as
 * `tracestate`.
 */
function isHeader(name: string, lower: string): boolean {
  const first = name.charCodeAt(0);
  const wanted = lower.charCodeAt(0);
  // An ASCII capital is its lowercase letter less 32; anything else that lowercases is not a token character.
  if (first !== wanted && first + 32 !== wanted) return false;
  return name.toLowerCase() === lower;
}

/** How an adapter's framework wants the scope opened; every field is optional. */
export interface RequestScopeOptions {
  /** A request id the framework already chose (fastify's `request.id`), instead of the policy's rules. */
  readonly requestId?: string | undefined;
  /**
   * The adapter bound the prototypes of `req`/`res` itself (bindEmitterPrototype, as expressContext does for
   * express's app.request/app.response): skips the per-object bindEmitter calls, whose one lookup each is
   * slow on objects with a replaced prototype.
   */
  readonly emittersBound?: boolean;
  /**
   * Where the echoed id goes instead of `res.setHeader`: fastify's reply, whose headers fastify writes in one
   * writeHead, where a header set on the raw response takes Node's slower merging path.
   */
  readonly headerTarget?: { header(name: string, value: string): unknown } | undefined;
}

/**
 * Runs `fn` in a new requestContext scope for this request, for its whole life. Listeners later added on
 * `req` and `res` run in the scope too: otherwise `data`/`end` run in the HTTP parser's context and
 * `finish`/`close` in the socket's (nodejs/node#41285, nodejs/node#33723, expressjs/body-parser#422).
 */
export function runInRequestScope<R>(
  req: IncomingMessage,
  res: ServerResponse,
  policy: RequestPolicy,
  fn: () => R,
  options?: RequestScopeOptions,
): R {
  const values = requestValuesFor(req.rawHeaders, policy, options?.requestId);
  const echoHeader = policy.echoHeader;
  if (echoHeader !== undefined) {
    const headerTarget = options?.headerTarget;
    if (headerTarget !== undefined) headerTarget.header(echoHeader, values.requestId);
    else if (!res.headersSent) res.setHeader(echoHeader, values.requestId);
  }
  if (options?.emittersBound !== true) {
    bindEmitter(req);
    bindEmitter(res);
  }
  // @ambient/diagnostics, when on, follows the request from inside its scope until `res` closes.
  const probe = diagnosticsProbe();
  const run = probe === undefined ? fn : followed(probe, req, res, values.requestId, fn);
  if (policy.propagation === undefined) return requestContext.run(values, run);
  return runWithOutgoingPolicy(policy.propagation, () => requestContext.run(values, run));
}

/**
 * `fn`, told to the diagnostics probe first. Made here, not inline: a closure inside runInRequestScope would
 * make V8 keep `req` and `res` in a heap context on every request, diagnostics on or off.
 */
function followed<R>(
  probe: DiagnosticsProbe,
  req: IncomingMessage,
  res: ServerResponse,
  requestId: string,
  fn: () => R,
): () => R {
  return () => {
    probe.requestOpened(req, res, requestId);
    return fn();
  };
}

/**
 * Runs `fn(requestId)` in a new requestContext scope for a fetch-style request, known only by its WHATWG
 * `Headers` (a Hono app called through `app.request()`, or served by a runtime without node:http). The rules are
 * the same, with two differences: `Headers` joins a header sent twice into one value (which then fails the
 * request-id and trace rules, as a repeated header does), and there are no `req`/`res` emitters to bind. The
 * caller echoes the id, on the response it makes.
 */
export function runInFetchRequestScope<R>(
  headers: Iterable<readonly [string, string]>,
  policy: RequestPolicy,
  fn: (requestId: string) => R,
): R {
  const rawHeaders: string[] = [];
  for (const [name, value] of headers) rawHeaders.push(name, value);
  const values = requestValuesFor(rawHeaders, policy);
  if (policy.propagation === undefined) return requestContext.run(values, fn, values.requestId);
  return runWithOutgoingPolicy(policy.propagation, () => requestContext.run(values, fn, values.requestId));
}

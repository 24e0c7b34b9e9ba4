import { requestContext } from '@ambient/core';
import { scopeObject, sharedState } from '@ambient/core/internal';
import { isValidRequestId } from './request-id.js';
import { formatTraceParent, isValidTraceState, parseTraceParent, type TraceParent } from './trace-context.js';

/**
 * The current scope as a flat map of strings, for any transport: HTTP headers, BullMQ's telemetry metadata,
 * AMQP message headers. The keys are the HTTP header names, lowercase.
 */
export type ContextCarrier = Record<string, string>;

/** The keys of a carrier. `x-request-id` holds the producer's own id: the consumer's causation id. */
export const carrierKeys = {
  requestId: 'x-request-id',
  correlationId: 'x-correlation-id',
  traceParent: 'traceparent',
  traceState: 'tracestate',
} as const;

/**
 * The current requestContext scope as a carrier: `x-request-id`, `x-correlation-id` (the scope's correlation
 * id, or its request id, so that a chain keeps its first id), and `traceparent`/`tracestate` where a trace is
 * known (the active span's, with a tracer). `{}` outside any scope.
 */
export function contextCarrier(): ContextCarrier {
  // Outside any scope is a normal case here (work enqueued at boot), not a lost context.
  const requestId = scopeObject(requestContext)?.requestId;
  if (requestId === undefined) return {};
  const carrier: ContextCarrier = {
    [carrierKeys.requestId]: requestId,
    [carrierKeys.correlationId]: requestContext.get('correlationId') ?? requestId,
  };
  const traceId = requestContext.get('traceId');
  const spanId = requestContext.get('spanId');
  if (traceId !== undefined && spanId !== undefined) {
    carrier[carrierKeys.traceParent] = formatTraceParent(traceId, spanId, requestContext.get('traceFlags'));
    const traceState = requestContext.get('traceState');
    if (traceState !== undefined) carrier[carrierKeys.traceState] = traceState;
  }
  return carrier;
}

/** What a carrier brings, each field checked; a field that fails its check is absent, never repaired. */
export interface CarrierFields {
  /** The producer's request id (`x-request-id`): the consumer's causation id. */
  readonly causationId?: string;
  /** `x-correlation-id`. */
  readonly correlationId?: string;
  readonly traceParent?: TraceParent;
  /** Only with a valid traceparent, as W3C Trace Context says. */
  readonly traceState?: string;
}

/**
 * The mark of a result of readCarrier, on the prototype of every result, one symbol for every copy of this
 * package: a result given back is returned as it is, and an object merely shaped like one is read as a carrier.
 */
const kRead = sharedState('@ambient/correlation.read-carrier', () => Symbol('ambient.readCarrier'));
const readPrototype: object = Object.freeze(Object.create(Object.prototype, { [kRead]: { value: true } }) as object);

/**
 * Reads a carrier that came from outside (another process, another library, a hand-written message) by the
 * rules an incoming HTTP request's headers get: ids must pass `validateId` (default: isValidRequestId), the trace
 * fields W3C Trace Context. Only own properties count, strings or bytes (Kafka headers); anything else, and a
 * getter or validator that throws, makes its field absent. Never throws. A result of readCarrier given back
 * is returned as it is, so `runJob({ carrier: readCarrier(c) })` reads `c` once.
 */
export function readCarrier(carrier: unknown, validateId: (id: string) => boolean = isValidRequestId): CarrierFields {
  if (typeof carrier !== 'object' || carrier === null || Array.isArray(carrier)) return {};
  if ((carrier as Record<symbol, unknown>)[kRead] === true) return carrier;
  // Four calls, not a map over `keys`: the array and its closure cost more than the rest of the read.
  const requestId = textAt(carrier, carrierKeys.requestId);
  const correlationId = textAt(carrier, carrierKeys.correlationId);
  const traceParent = textAt(carrier, carrierKeys.traceParent);
  const traceState = textAt(carrier, carrierKeys.traceState);
  const fields: { -readonly [K in keyof CarrierFields]: CarrierFields[K] } = Object.create(readPrototype) as object;
  if (requestId !== undefined && safely(validateId, requestId)) fields.causationId = requestId;
  // The first hop's correlation id is the producer's own request id: the same text, already checked.
  const checked = correlationId === fields.causationId && validateId === isValidRequestId;
  if (correlationId !== undefined && (checked || safely(validateId, correlationId))) {
    fields.correlationId = correlationId;
  }
  const parsed = parseTraceParent(traceParent);
  if (parsed !== undefined) {
    fields.traceParent = parsed;
    if (traceState !== undefined && isValidTraceState(traceState)) fields.traceState = traceState;
  }
  // Not frozen: its type is readonly, and freezing cost every message's run more than the rest of this read.
  return fields;
}

/** The text of the carrier's own property `key`, if it has one; a getter or proxy trap that throws gives none. */
function textAt(carrier: object, key: string): string | undefined {
  try {
    return Object.hasOwn(carrier, key) ? textOf((carrier as Record<string, unknown>)[key]) : undefined;
  } catch {
    return undefined;
  }
}

/** A carrier value's text: a string, or bytes read as latin1 (the checks then refuse anything non-ASCII). */
export function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value instanceof Uint8Array && value.byteLength <= 1024) {
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('latin1');
  }
  return undefined;
}

/** A user's validator that throws rejects the id rather than the job. */
export function safely(validate: (id: string) => boolean, id: string): boolean {
  try {
    return validate(id) === true;
  } catch {
    return false;
  }
}

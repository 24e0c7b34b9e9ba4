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

/** What readCarrier returned, in every copy of this package: read again, each is returned as it is. */
const readResults = sharedState('@ambient/correlation.read-carriers', () => new WeakSet<CarrierFields>());

/**
 * Reads a carrier that came from outside (another process, another library, a hand-written message) by the
 * rules an incoming HTTP request's headers get: ids must pass `validateId` (default: isValidRequestId), the trace
 * fields W3C Trace Context. Only own properties count, strings or bytes (Kafka headers); anything else, and a
 * getter or validator that throws, makes its field absent. Never throws. A result of readCarrier given back
 * is returned as it is, so `runJob({ carrier: readCarrier(c) })` reads `c` once.
 */
export function readCarrier(carrier: unknown, validateId: (id: string) => boolean = isValidRequestId): CarrierFields {
  if (typeof carrier !== 'object' || carrier === null || Array.isArray(carrier)) return {};
  if (readResults.has(carrier)) return carrier;
  const text: Partial<Record<keyof typeof carrierKeys, string>> = {};
  for (const [field, key] of Object.entries(carrierKeys) as Array<[keyof typeof carrierKeys, string]>) {
    try {
      if (Object.hasOwn(carrier, key)) text[field] = textOf((carrier as Record<string, unknown>)[key]);
    } catch {
      // a throwing getter or proxy trap: the field is absent
    }
  }
  const fields: { -readonly [K in keyof CarrierFields]: CarrierFields[K] } = {};
  if (text.requestId !== undefined && safely(validateId, text.requestId)) fields.causationId = text.requestId;
  const correlation = text.correlationId;
  // The first hop's correlation id is the producer's own request id: the same text, already checked.
  const checked = correlation === fields.causationId && validateId === isValidRequestId;
  if (correlation !== undefined && (checked || safely(validateId, correlation))) fields.correlationId = correlation;
  const traceParent = parseTraceParent(text.traceParent);
  if (traceParent !== undefined) {
    fields.traceParent = traceParent;
    if (text.traceState !== undefined && isValidTraceState(text.traceState)) fields.traceState = text.traceState;
  }
  readResults.add(Object.freeze(fields));
  return fields;
}

/** A carrier value's text: a string, or bytes read as latin1 (the checks then refuse anything non-ASCII). */
function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value instanceof Uint8Array && value.byteLength <= 1024) {
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('latin1');
  }
  return undefined;
}

/** A user's validator that throws rejects the id rather than the job. */
function safely(validate: (id: string) => boolean, id: string): boolean {
  try {
    return validate(id) === true;
  } catch {
    return false;
  }
}

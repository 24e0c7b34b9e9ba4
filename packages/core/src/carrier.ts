import { peekContext } from './context.js';
import { requestContext } from './request-context.js';
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
 * id, or its request id where it has none, so that a chain keeps the first id), and `traceparent`/`tracestate`
 * where a trace is known (the active span's, with a tracer). `{}` outside any scope.
 */
export function contextCarrier(): ContextCarrier {
  // Outside any scope is a normal case here (work enqueued at boot), not a lost context.
  const requestId = peekContext(requestContext, 'requestId');
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
 * Reads a carrier that came from outside (another process, another library, a hand-written message), by the
 * rules an incoming HTTP request's headers get: ids pass `validateId` (default: isValidRequestId) and the
 * trace fields W3C Trace Context. Anything that is not a plain object gives `{}`; a value that is not a string
 * (or bytes, as Kafka and some AMQP clients deliver headers) is ignored. Never throws, and nothing it drops is
 * returned or logged.
 */
export function readCarrier(carrier: unknown, validateId: (id: string) => boolean = isValidRequestId): CarrierFields {
  if (typeof carrier !== 'object' || carrier === null || Array.isArray(carrier)) return {};
  const fields: { -readonly [K in keyof CarrierFields]: CarrierFields[K] } = {};
  const causationId = textOf(carrier, carrierKeys.requestId);
  if (causationId !== undefined && safely(validateId, causationId)) fields.causationId = causationId;
  const correlationId = textOf(carrier, carrierKeys.correlationId);
  if (correlationId !== undefined && safely(validateId, correlationId)) fields.correlationId = correlationId;
  const traceParent = parseTraceParent(textOf(carrier, carrierKeys.traceParent));
  if (traceParent !== undefined) {
    fields.traceParent = traceParent;
    const traceState = textOf(carrier, carrierKeys.traceState);
    if (traceState !== undefined && isValidTraceState(traceState)) fields.traceState = traceState;
  }
  return fields;
}

/** An own property's text: a string, or bytes read as latin1 (the checks then refuse anything non-ASCII). */
function textOf(carrier: object, key: string): string | undefined {
  if (!Object.prototype.hasOwnProperty.call(carrier, key)) return undefined;
  let value: unknown;
  try {
    value = (carrier as Record<string, unknown>)[key];
  } catch {
    return undefined; // a getter that throws: a foreign object, treated as absent
  }
  if (typeof value === 'string') return value;
  if (value instanceof Uint8Array && value.byteLength <= 1024) {
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('latin1');
  }
  return undefined;
}

/** A user's validator that throws rejects the id rather than the job. */
function safely(validate: (id: string) => boolean, id: string): boolean {
  if (validate === isValidRequestId) return isValidRequestId(id); // ours never throws: no try on every job
  try {
    return validate(id) === true;
  } catch {
    return false;
  }
}

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
  // Each key is read at a site of its own, by name: one site for all four keys (carrier[key] in a helper) was a
  // megamorphic keyed load, on every job a worker takes (5,266 -> 5,085 instructions a call: callgrind with
  // --predictable, Node 24, a parsed three-field carrier read in a loop). Only own properties count (an
  // inherited value, from a polluted Object.prototype say, is not the producer's); a getter or proxy trap that
  // throws makes its field absent, and the others stay.
  const named = carrier as Partial<Record<string, unknown>>;
  const fields: { -readonly [K in keyof CarrierFields]: CarrierFields[K] } = {};
  let requestId: unknown, correlationId: unknown, traceParent: unknown;
  try {
    if (Object.hasOwn(carrier, carrierKeys.requestId)) requestId = named['x-request-id'];
  } catch {
    // the field is absent (above)
  }
  const causation = textOf(requestId);
  if (causation !== undefined && safely(validateId, causation)) fields.causationId = causation;
  try {
    if (Object.hasOwn(carrier, carrierKeys.correlationId)) correlationId = named['x-correlation-id'];
  } catch {
    // the field is absent (above)
  }
  const correlation = textOf(correlationId);
  // The first hop's correlation id is the producer's own request id (contextCarrier): the same text, already
  // checked. The default rule's check walks every character, a visible share of a job (Node 24: about 1,100
  // instructions for a UUID, in a steady-state profile of a BullMQ job).
  const checked = correlation === fields.causationId && validateId === isValidRequestId;
  if (correlation !== undefined && (checked || safely(validateId, correlation))) fields.correlationId = correlation;
  try {
    if (Object.hasOwn(carrier, carrierKeys.traceParent)) traceParent = named.traceparent;
  } catch {
    // the field is absent (above)
  }
  const parsed = parseTraceParent(textOf(traceParent));
  if (parsed === undefined) return fields;
  fields.traceParent = parsed;
  let traceState: unknown;
  try {
    if (Object.hasOwn(carrier, carrierKeys.traceState)) traceState = named.tracestate;
  } catch {
    // the field is absent (above)
  }
  const state = textOf(traceState);
  if (state !== undefined && isValidTraceState(state)) fields.traceState = state;
  return fields;
}

/**
 * A carrier value's text: a string, or bytes read as latin1 (the checks then refuse anything non-ASCII). Bytes
 * whose accessors throw (a hostile subclass) are no text.
 */
function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value === undefined) return undefined;
  try {
    if (value instanceof Uint8Array && value.byteLength <= 1024) {
      return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('latin1');
    }
  } catch {
    // not bytes anyone can read
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

import { sharedSingleton } from './storage.js';

/** The ids of the span active in the current flow, as a tracer reports them. */
export interface ActiveTrace {
  readonly traceId: string;
  readonly spanId: string;
  /** W3C trace flags as a number (OpenTelemetry's SpanContext#traceFlags): bit 0 is `sampled`. */
  readonly traceFlags?: number;
}

/** Reports the active span of the current flow, or `undefined` when none is active. Called on every read. */
export type TraceSource = () => ActiveTrace | undefined;

// Shared by every copy of @ambient/core, like the storage cell: a tracer registered through one copy is seen
// by requestContext read through another.
const holder = sharedSingleton('traceSource', () => ({ source: undefined as TraceSource | undefined }));

/**
 * Lets a tracer (@ambient/opentelemetry-context's AmbientContextManager) make requestContext's `traceId` and
 * `spanId` report its active span, so log lines and spans share one trace id and the innermost span id. Pass
 * `undefined` to unregister. Inside a request with no active span the request's own values (from an incoming
 * traceparent) still apply.
 */
export function setTraceSource(source: TraceSource | undefined): void {
  holder.source = source;
}

export function currentTraceSource(): TraceSource | undefined {
  return holder.source;
}

/**
 * The active span as the registered tracer reports it, or `undefined` (no tracer, or no span): for code that
 * reads several trace fields at once (a log line's), one call where each requestContext.get makes its own.
 */
export function activeTrace(): ActiveTrace | undefined {
  return holder.source?.();
}

/*
 * The span an OpenTelemetry instrumentation made active around a consume callback
 * (@opentelemetry/instrumentation-amqplib runs each callback inside context.with(its consumer span)). A run
 * opens its scope from the root, and under @ambient/opentelemetry-context's AmbientContextManager the active
 * OpenTelemetry context lives in that same frame, so the run would drop the consumer span: spans started in the
 * handler would begin traces of their own. OpenTelemetry is reached through the API's global registry, not an
 * import, so that it stays out of this package's dependencies (the keys: @ambient/bullmq-context's
 * opentelemetry-bridge.ts).
 */

const kGlobals = Symbol.for('opentelemetry.js.api.1');
const kSpan = Symbol.for('OpenTelemetry Context Key SPAN');

interface OtelContext {
  getValue(key: symbol): unknown;
  setValue(key: symbol, value: unknown): OtelContext;
}

interface OtelContextManager {
  active(): OtelContext;
  with<R>(context: OtelContext, fn: () => R): R;
}

/** Runs `fn` with the span kept active again. */
export type EnterSpan = <R>(fn: () => R) => R;

/**
 * The span active now, if it belongs to the trace `traceId` (the message's traceparent): the instrumentation's
 * consumer span continues the producer's trace. A span of any other trace is not the message's but whatever was
 * active where the connection was opened (a request that connected lazily), and must not leak into every run.
 */
export function activeSpanOfTrace(traceId: string): EnterSpan | undefined {
  const manager = (globalThis as { [kGlobals]?: { context?: OtelContextManager } })[kGlobals]?.context;
  if (manager === undefined) return undefined;
  const span = manager.active().getValue(kSpan) as { spanContext?: () => { traceId?: unknown } } | undefined;
  if (typeof span?.spanContext !== 'function' || span.spanContext().traceId !== traceId) return undefined;
  // Inside the run the active context is the root's (AmbientContextManager) or still the caller's (a manager
  // of its own): either way, with this span on it.
  return (fn) => manager.with(manager.active().setValue(kSpan, span), fn);
}

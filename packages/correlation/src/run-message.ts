import { registeredOpenTelemetry } from './opentelemetry-globals.js';
import { readCarrier } from './carrier.js';
import { openRun, type JobRun } from './run-job.js';

/**
 * runJob for a message handed over by a broker client, its run made by the broker package from options checked
 * when the handler was wrapped: the same run, and where an instrumentation made its consumer span of the
 * message's trace active around the callback (@opentelemetry/instrumentation-amqplib, -kafkajs), that span stays
 * active inside, because the run opens from the root and would otherwise drop it. `run.id` and `run.attempt`,
 * where given, are a string and a positive integer; `run.name` a non-empty string.
 */
export function runMessage<R>(run: JobRun, fn: () => R): R {
  const carried = readCarrier(run.carrier);
  const traceId = run.link === true ? undefined : carried.traceParent?.traceId;
  const enterSpan = traceId === undefined ? undefined : activeSpanOfTrace(traceId);
  run.carrier = carried;
  return openRun(run, enterSpan === undefined ? fn : () => enterSpan(fn));
}

/** Runs `fn` with the span kept active again. */
type EnterSpan = <R>(fn: () => R) => R;

/**
 * The span active now, if it belongs to the trace `traceId` (the message's traceparent): the instrumentation's
 * consumer span continues the producer's trace. A span of any other trace is whatever was active where the
 * connection was opened (a request that connected lazily), and must not leak into every run.
 */
function activeSpanOfTrace(traceId: string): EnterSpan | undefined {
  const otel = registeredOpenTelemetry();
  if (otel === undefined) return undefined;
  // Context values are opaque: whatever sits under the span key is checked before it is trusted as a span.
  const span = otel.spanOf(otel.active());
  if (typeof span?.spanContext !== 'function' || span.spanContext().traceId !== traceId) return undefined;
  // Inside the run the active context is the root's (AmbientContextManager) or still the caller's (a manager of
  // its own): either way, with this span on it.
  return (fn) => otel.with(otel.withSpan(otel.active(), span), fn);
}

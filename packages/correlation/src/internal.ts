/**
 * `@ambient/correlation/internal`: what Ambient's broker packages share beyond the public rules. Every export is
 * @internal and exempt from semver. Applications import `@ambient/correlation`.
 * @packageDocumentation
 */
/** @internal */
export {
  registeredOpenTelemetry,
  type OtelContext,
  type OtelSpan,
  type OtelSpanContext,
  type OtelTracer,
  type RegisteredOpenTelemetry,
} from './opentelemetry-globals.js';
/** @internal */
export { baggageMembers } from './baggage.js';
/** @internal */
export { runMessage } from './run-message.js';
/** @internal */
export { openRun } from './run-job.js';

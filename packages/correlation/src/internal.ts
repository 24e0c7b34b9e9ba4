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
export {
  messageRun,
  messageRunOptionShape,
  printable,
  runMessage,
  type DeliveredMessage,
  type MessageRunOptions,
} from './run-message.js';
/** @internal */
export { openRun } from './run-job.js';
/** @internal */
export { textOf } from './carrier.js';
/** @internal */
export { RemoteSpan } from './remote-span.js';

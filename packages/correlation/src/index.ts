export { isValidRequestId, maxRequestIdLength, uuidv7 } from './request-id.js';
export { formatTraceParent, isValidTraceState, parseTraceParent, type TraceParent } from './trace-context.js';
export { carrierKeys, contextCarrier, readCarrier, type CarrierFields, type ContextCarrier } from './carrier.js';
export { baggageKeys, readBaggage, type BaggageIds } from './baggage.js';
export { runJob, type JobRun } from './run-job.js';
export { scheduled } from './scheduled.js';
export type { CorrelationError, CorrelationErrorCode } from './errors.js';

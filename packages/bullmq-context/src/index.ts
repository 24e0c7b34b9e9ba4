export { bullmqTelemetry, type BullmqContext, type BullmqTelemetryOptions } from './telemetry.js';
export { bullmqProcessor, type JobLike } from './bullmq-processor.js';
export type { BullmqContextError, BullmqContextErrorCode } from './errors.js';

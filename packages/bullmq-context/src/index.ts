export { bullmqTelemetry, type BullmqContext, type BullmqTelemetryOptions } from './telemetry.js';
export { bullmqProcessor, type JobLike } from './bullmq-processor.js';
export type { BullmqContextError, BullmqContextErrorCode } from './errors.js';
export { requestContext, type JobInfo, type RequestStore } from '@ambient/core';

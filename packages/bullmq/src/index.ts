export { bullmqTelemetry, type BullmqContext, type BullmqTelemetryOptions } from './telemetry.js';
export { runInJobContext, type JobLike } from './run-in-job-context.js';
export type { BullmqContextError, BullmqContextErrorCode } from './errors.js';
export { requestContext, type JobInfo, type RequestStore } from '@ambient/core';

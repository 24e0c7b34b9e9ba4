export { guardDrivers, type DriverGuard, type GuardDriversOptions } from './guard-drivers.js';
export { queryLogger, type QueryLoggerTarget } from './query-logger.js';
export type { QueryEvent, QueryListener } from './query-log.js';
export { redactStatement } from './statement.js';
export type { DriversContextError, DriversContextErrorCode } from './errors.js';
export { bindCallback, requestContext, runInRoot } from '@ambient/core';

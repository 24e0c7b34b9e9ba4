export { guardDrivers, type DriverGuard, type GuardDriversOptions } from './guard-drivers.js';
export { queryLogListener, type QueryLoggerTarget } from './query-log-listener.js';
export type { QueryEvent, QueryListener } from './query-log.js';
export { redactStatement } from './statement.js';
export type { DriversContextError, DriversContextErrorCode } from './errors.js';

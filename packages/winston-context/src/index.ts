export { correlationFormat, type CorrelationFormatOptions } from './correlation-format.js';
export { guardWinston, type GuardWinstonOptions, type WinstonGuard } from './guard-winston.js';
export type { WinstonContextError, WinstonContextErrorCode, WinstonContextWarningCode } from './errors.js';

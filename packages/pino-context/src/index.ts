export { correlationMixin, type CorrelationMixinOptions, type MixinFunction } from './correlation-mixin.js';
export { requestLogger, type ChildLogger, type RequestLoggerOptions } from './request-logger.js';
export { pinoHttpGenReqId } from './pino-http.js';
export type { PinoContextError, PinoContextErrorCode, PinoContextWarningCode } from './errors.js';

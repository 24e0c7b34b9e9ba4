export { AmbientContextManager } from './context-manager.js';
export {
  correlationLogProcessor,
  type CorrelationLogProcessor,
  type CorrelationLogProcessorOptions,
  type WritableLogRecord,
} from './correlation-log-processor.js';
export { correlationPropagator } from './correlation-propagator.js';
export type { OpenTelemetryContextError, OpenTelemetryContextErrorCode } from './errors.js';

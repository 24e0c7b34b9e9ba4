import './version-check.js';

export { Variable, type VariableOptions } from './variable.js';
export { Snapshot } from './snapshot.js';
export { createContext, type Context, type ContextOptions } from './context.js';
export { requestContext, type JobInfo, type OperationInfo, type RequestStore } from './request-context.js';
export type { CorrelationFieldNames } from './correlation-fields.js';
export { runInRoot } from './root.js';
export { bindEmitter } from './bind-emitter.js';
export { bindCallback } from './bind-callback.js';
export { AmbientError, type AmbientErrorCode, type AmbientErrorCodes } from './ambient-error.js';
export type { CoreErrorCode } from './errors.js';

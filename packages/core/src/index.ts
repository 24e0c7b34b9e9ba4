export { Variable, type VariableOptions } from './variable.js';
export { Snapshot } from './snapshot.js';
export { bindEmitter } from './bind-emitter.js';
export { createContext, type Context, type ContextOptions } from './context.js';
export { runInRoot } from './root.js';
export { requestContext, type RequestStore } from './request-context.js';
export { AmbientError, type AmbientErrorCode, type AmbientErrorCodes } from './ambient-error.js';
export type { CoreErrorCode } from './errors.js';

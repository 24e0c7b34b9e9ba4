export { Variable, type VariableOptions } from './variable.js';
export { Snapshot } from './snapshot.js';
export { bindEmitter, bindEmitterPrototype } from './bind-emitter.js';
export { createContext, type Context, type ContextOptions } from './context.js';
export { requestContext, type RequestStore } from './request-context.js';
export { setTraceSource, type ActiveTrace, type TraceSource } from './trace-source.js';
export { AmbientError, describeValue, type AmbientErrorCode } from './errors.js';

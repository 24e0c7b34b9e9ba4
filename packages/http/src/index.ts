export { httpContext } from './http-context.js';
export { outgoingPropagation, type OutgoingPropagation } from './propagation.js';
export type { HttpContextOptions, PropagationOptions, RequestContextOptions } from './options.js';
// The id and trace-context rules live in @ambient/core, where every transport (HTTP, queues) shares them.
export {
  formatTraceParent,
  isValidRequestId,
  maxRequestIdLength,
  parseTraceParent,
  uuidv7,
  type TraceParent,
} from '@ambient/core';
export type { HttpContextError, HttpContextErrorCode, HttpContextWarningCode } from './errors.js';
export { requestContext, type RequestStore } from '@ambient/core';

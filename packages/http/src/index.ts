export { httpContext } from './http-context.js';
export { runInRequestScope, requestValues, type RequestScopeOptions } from './request-scope.js';
export {
  createRequestPolicy,
  type HttpContextOptions,
  type PropagationOptions,
  type RequestContextOptions,
  type RequestPolicy,
} from './options.js';
export { isValidRequestId, maxRequestIdLength, uuidv7 } from './request-id.js';
export { formatTraceParent, parseTraceParent, type TraceParent } from './trace-context.js';
export type { HttpContextError, HttpContextErrorCode } from './errors.js';
export { requestContext, type RequestStore } from '@ambient/core';

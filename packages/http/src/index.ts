export { httpContext } from './http-context.js';
export type { HttpContextOptions, PropagationOptions, RequestContextOptions } from './options.js';
export { isValidRequestId, maxRequestIdLength, uuidv7 } from './request-id.js';
export { formatTraceParent, parseTraceParent, type TraceParent } from './trace-context.js';
export type { HttpContextError, HttpContextErrorCode, HttpContextWarningCode } from './errors.js';
export { requestContext, type RequestStore } from '@ambient/core';

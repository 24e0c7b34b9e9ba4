export { httpContext } from './http-context.js';
export { outgoingPropagation, type OutgoingPropagation } from './propagation.js';
export type { HttpContextOptions, PropagationOptions, RequestContextOptions } from './options.js';
export type { HttpContextError, HttpContextErrorCode, HttpContextWarningCode } from './errors.js';
export { requestContext, type RequestStore } from '@ambient/core';

export { expressContext, type ExpressContextOptions } from './express-context.js';
export type { HttpContextError, HttpContextErrorCode } from '@ambient/http-context';
export { requestContext, type RequestStore } from '@ambient/core';

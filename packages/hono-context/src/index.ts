export { honoContext, type HonoContextOptions, type HonoContextVariables } from './hono-context.js';
export type { HttpContextError, HttpContextErrorCode } from '@ambient/http-context';
export { requestContext, type RequestStore } from '@ambient/core';

export { koaContext, type KoaContextLike, type KoaContextOptions } from './koa-context.js';
export type { HttpContextError, HttpContextErrorCode } from '@ambient/http-context';
export { requestContext, type RequestStore } from '@ambient/core';

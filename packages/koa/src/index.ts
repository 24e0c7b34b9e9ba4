export { koaContext, type KoaContextLike, type KoaContextOptions } from './koa-context.js';
export { requestContext, type RequestStore } from '@ambient/core';
export { isValidRequestId, uuidv7, type PropagationOptions } from '@ambient/http-context';

export { fastifyContext, type FastifyContextOptions } from './fastify-context.js';
export type { FastifyContextError, FastifyContextErrorCode, FastifyContextWarningCode } from './errors.js';
export { requestContext, type RequestStore } from '@ambient/core';

export { AmbientModule, type AmbientModuleOptions } from './ambient-module.js';
export { RequestContext } from './request-context-token.js';
export { contextProvider, contextToken, InjectContext } from './context-provider.js';
export { CorrelationConsoleLogger } from './correlation-console-logger.js';
export type { NestjsContextError, NestjsContextErrorCode } from './errors.js';
export type { HttpContextError, HttpContextErrorCode } from '@ambient/http-context';
export { requestContext, type RequestStore } from '@ambient/core';

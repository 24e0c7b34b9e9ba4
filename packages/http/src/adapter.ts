/**
 * `@ambient/http-context/adapter`: what a framework adapter needs to apply Ambient's HTTP rules (read and check
 * the shared options once, then open each request's scope). Applications import `@ambient/http-context`.
 */
export { createRequestPolicy, type RequestPolicy, type OutgoingPolicy } from './options.js';
export { requestIdFor, runInRequestScope, type RequestScopeOptions } from './request-scope.js';

/**
 * `@ambient/http-context/internal`: what Ambient's framework adapters need to apply the HTTP rules (read and
 * check the shared options once, then open each request's scope). Every export is @internal and exempt from
 * semver. Applications import `@ambient/http-context`.
 * @packageDocumentation
 */
/** @internal */
export { createRequestPolicy, type RequestPolicy, type OutgoingPolicy } from './options.js';
/** @internal */
export {
  requestIdFor,
  requestValuesFor,
  runInFetchRequestScope,
  runInRequestScope,
  type RequestScopeOptions,
} from './request-scope.js';

/**
 * `@ambient/core/adapter`: what only authors of adapters and integrations need (binding framework prototypes,
 * reporting a tracer's active span, the error and options toolkit). Applications import `@ambient/core`.
 */
export { bindEmitterPrototype } from './bind-emitter.js';
export { activeTrace, setTraceSource, type ActiveTrace, type TraceSource } from './trace-source.js';
export {
  defineErrors,
  defineWarnings,
  type CauseOption,
  type CodesOf,
  type ErrorFactories,
  type ErrorTemplate,
  type MessageTemplate,
  type WarningEmitters,
  type WarningCodesOf,
  type WarningTemplate,
} from './define-errors.js';
export { argumentErrorTemplates, optionErrorTemplates } from './error-templates.js';
export {
  readOptions,
  rule,
  rules,
  type OptionErrors,
  type OptionRule,
  type OptionShape,
  type ReadOptionsContext,
} from './read-options.js';
export { describeValue } from './describe-value.js';
export { asyncContextImplementation } from './root.js';
export type { Implementation as AsyncContextImplementation } from './storage.js';
export { attachValue, captureWith, snapshotWith, type AttachedValue } from './variable.js';
export { bindFirstCall } from './bind-callback.js';
export { forwardingFunction, type Forward } from './forwarding-function.js';
export { functionWithNameAndLength, lengthOf } from './copy-name-and-length.js';
export { carrierKeys, readCarrier, type CarrierFields } from './carrier.js';
export { isValidTraceState, maxTraceStateLength } from './trace-context.js';
export { runReadJob, type ReadJobRun } from './run-job.js';
export {
  applyInCapturedContext,
  bindChannelContext,
  captureContext,
  enterCapturedContext,
  isAmbientStorage,
  runInCapturedContext,
  type CapturedContext,
} from './channel-context.js';
export { keptTracingChannel } from './kept-channel.js';
export { diagnosticsProbe, setDiagnosticsProbe, type DiagnosticsProbe } from './storage.js';
export { newScope, peekContext, runNewScope, scopeObject, type NewScope } from './context.js';
export { loadedCopies, type CoreCopy } from './copies.js';
export { version as coreVersion } from './version.js';

/**
 * `@ambient/core/internal`: the toolkit Ambient's own packages are built with. Every export is @internal and
 * exempt from semver: it changes with the packages that use it. Applications import `@ambient/core`.
 * @packageDocumentation
 */
import './version-check.js';

/** @internal */
export {
  defineErrors,
  defineWarnings,
  usageErrorTemplates,
  type CauseOption,
  type CodesOf,
  type ErrorFactories,
  type ErrorTemplate,
  type MessageTemplate,
  type WarningCodesOf,
  type WarningEmitters,
  type WarningTemplate,
} from './define-errors.js';
/** @internal */
export { readOptions, rule, rules, type OptionErrors, type OptionRule, type OptionShape } from './read-options.js';
/** @internal */
export {
  bindChannelContext,
  captureContext,
  enterCapturedContext,
  isAmbientStorage,
  runInCapturedContext,
  type CapturedContext,
} from './captured-context.js';
/** @internal */
export { attachValue, captureWith, type AttachedValue } from './variable.js';
/** @internal */
export { keptTracingChannel } from './kept-channel.js';
/** @internal */
export { bindEmitterPrototype } from './bind-emitter.js';
/** @internal */
export { bindFirstCall } from './bind-callback.js';
/** @internal */
export { functionShapedLike } from './forwarding-function.js';
/** @internal */
export { scopeObject } from './context.js';
/** @internal */
export { activeTrace, setTraceSource, type ActiveTrace, type TraceSource } from './request-context.js';
/** @internal */
export { asyncContextImplementation } from './root.js';
/** @internal */
export {
  diagnosticsProbe,
  loadedCopies,
  setDiagnosticsProbe,
  sharedState,
  type CoreCopy,
  type DiagnosticsProbe,
  type Implementation,
} from './registry.js';

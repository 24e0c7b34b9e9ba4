/**
 * `@ambient/core/internal`: the toolkit Ambient's own packages are built with. Every export is @internal and
 * exempt from semver. Applications import `@ambient/core`.
 * @packageDocumentation
 */
import './version-check.js';
import { bindFirstCall } from './bind-callback.js';
import { bindEmitterPrototype } from './bind-emitter.js';
import {
  bindChannelContext,
  captureContext,
  enterCapturedContext,
  isAmbientStorage,
  runInCapturedContext,
  type CapturedContext,
} from './captured-context.js';
import { runFromRoot, scopeObject } from './context.js';
import {
  addLineFields,
  correlationFields,
  lineContext,
  resolveFieldNames,
  type LineContext,
  type ResolvedFieldNames,
} from './correlation-fields.js';
import {
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
import { functionShapedLike } from './forwarding-function.js';
import { keptTracingChannel } from './kept-channel.js';
import { readOptions, rule, rules, type OptionErrors, type OptionRule, type OptionShape } from './read-options.js';
import {
  diagnosticsProbe,
  loadedCopies,
  sharedState,
  type CoreCopy,
  type DiagnosticsProbe,
  type Implementation,
} from './registry.js';
import {
  activeTrace,
  captureRequestScopeWith,
  setTraceSource,
  type ActiveTrace,
  type TraceSource,
} from './request-context.js';
import { asyncContextImplementation } from './root.js';
import { currentRuntime, fetchIsUndici, type Runtime } from './runtime.js';
import { attachValue, captureWith, type AttachedValue } from './variable.js';

/** @internal */
export {
  // errors and options
  defineErrors,
  defineWarnings,
  usageErrorTemplates,
  readOptions,
  rule,
  rules,
  // capturing and entering the values current somewhere
  captureContext,
  captureWith,
  captureRequestScopeWith,
  runInCapturedContext,
  enterCapturedContext,
  runFromRoot,
  attachValue,
  bindChannelContext,
  keptTracingChannel,
  isAmbientStorage,
  // binding what a host calls later
  bindEmitterPrototype,
  bindFirstCall,
  functionShapedLike,
  // reading a context and the tracer without side effects
  scopeObject,
  setTraceSource,
  activeTrace,
  // the correlation values every logger binding writes
  addLineFields,
  correlationFields,
  lineContext,
  resolveFieldNames,
  // the process: diagnostics, copies, the implementation, state shared across copies
  diagnosticsProbe,
  loadedCopies,
  asyncContextImplementation,
  currentRuntime,
  fetchIsUndici,
  sharedState,
};
/** @internal */
export type {
  ActiveTrace,
  AttachedValue,
  CapturedContext,
  CauseOption,
  CodesOf,
  CoreCopy,
  DiagnosticsProbe,
  ErrorFactories,
  ErrorTemplate,
  Implementation,
  LineContext,
  MessageTemplate,
  OptionErrors,
  OptionRule,
  OptionShape,
  ResolvedFieldNames,
  Runtime,
  TraceSource,
  WarningCodesOf,
  WarningEmitters,
  WarningTemplate,
};

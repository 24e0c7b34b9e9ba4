import type { AmbientError } from '@ambient/core';
import {
  defineErrors,
  defineWarnings,
  usageErrorTemplates,
  type CodesOf,
  type WarningCodesOf,
} from '@ambient/core/internal';

declare module '@ambient/core' {
  interface AmbientErrorCodes {
    ERR_AMBIENT_DIAGNOSTICS_INVALID_OPTION: true;
    ERR_AMBIENT_CONTEXT_LOST: true;
  }
}

/** Every error @ambient/diagnostics throws. Match on `error.code`, never on the message. */
export const errors = defineErrors({
  ...usageErrorTemplates({ option: 'ERR_AMBIENT_DIAGNOSTICS_INVALID_OPTION' }),
  contextLost: {
    code: 'ERR_AMBIENT_CONTEXT_LOST',
    message: (context: string, site: string) =>
      `${context} was read outside any scope while requests are being served, at ${site} ` +
      '(diagnostics are strict: the read throws instead of returning undefined).',
  },
});

const readme = 'https://github.com/ambient-js/ambient/tree/main/packages/diagnostics';

/**
 * Every report @ambient/diagnostics makes, as a `process.emitWarning` (type `AmbientWarning`) with a stable
 * code. The same reports reach `onReport` as objects (reports.ts).
 */
export const warnings = defineWarnings({
  capabilities: {
    code: 'WARN_AMBIENT_DIAGNOSTICS_ON',
    message: (line: string) => `Ambient diagnostics are on: ${line} (${readme}#what-it-reports).`,
  },
  contextLost: {
    code: 'WARN_AMBIENT_CONTEXT_LOST',
    message: (context: string, site: string, stack: string) =>
      `${context} was read outside any scope while requests are being served, at ${site}: the code there ` +
      `lost its request's context; wrap a callback a library queues with Snapshot.wrap where it is queued, ` +
      `or start a boot-time timer with scheduled() (${readme}#acting-on-a-report).\n${stack}`,
  },
  contextCrossed: {
    code: 'WARN_AMBIENT_CONTEXT_CROSSED',
    message: (place: string, owner: string, found: string, site: string, stack: string) =>
      `${place} belongs to request ${owner} but ran in the context of ${found}, at ${site}: a pool or a batch ` +
      `called it back from the other request, which guardDrivers() fixes for drivers and Snapshot.wrap for the ` +
      `rest (${readme}#acting-on-a-report).\n${stack}`,
  },
  scopeRetained: {
    code: 'WARN_AMBIENT_SCOPE_RETAINED',
    message: (requestId: string, route: string, ageMs: number, pending: number) =>
      `The scope of request ${requestId} (${route}) is still reachable ${Math.round(ageMs)} ms after its ` +
      `response closed, past a full garbage collection (${pending} such scope${pending === 1 ? '' : 's'} now): ` +
      `in a heap snapshot, look for the retainers of the string "${requestId}" (${readme}#acting-on-a-report).`,
  },
  timerOutlived: {
    code: 'WARN_AMBIENT_TIMER_OUTLIVED_REQUEST',
    message: (requestId: string, route: string, timers: string) =>
      `Request ${requestId} (${route}) closed with timers it armed still pending ` +
      `(${readme}#acting-on-a-report):\n${timers}`,
  },
  rootEnterWith: {
    code: 'WARN_AMBIENT_ROOT_ENTER_WITH',
    message: (site: string, stack: string) =>
      `AsyncLocalStorage#enterWith was called outside any scope, at ${site}: use run() instead ` +
      `(${readme}#acting-on-a-report).\n${stack}`,
  },
  failed: {
    code: 'WARN_AMBIENT_DIAGNOSTICS_FAILED',
    once: true,
    message: (error: string) =>
      `Ambient diagnostics failed to follow a request and go on without it, the request unaffected: ${error} ` +
      `(${readme}#enablediagnosticsoptions).`,
  },
  retainedAfterRaised: {
    code: 'WARN_AMBIENT_DIAGNOSTICS_RETAINED_AFTER_RAISED',
    once: true,
    message: (given: number) =>
      `retainedAfterMs ${given} is under the second for which Node's HTTP Date-header cache keeps a request's ` +
      `scope, so it is raised to 1000 (${readme}#enablediagnosticsoptions).`,
  },
  alreadyOn: {
    code: 'WARN_AMBIENT_DIAGNOSTICS_ALREADY_ON',
    message: () =>
      'enableDiagnostics(options) was called while diagnostics are already on, so its options are not applied: ' +
      `call disable() on the handle first (${readme}#enablediagnosticsoptions).`,
  },
  environmentIgnored: {
    code: 'WARN_AMBIENT_DIAGNOSTICS_ENV_IGNORED',
    message: (value: string) =>
      `AMBIENT_DIAGNOSTICS=${value} is not one of 1, true or strict, so diagnostics stay off ` +
      `(${readme}#ambient_diagnostics).`,
  },
  hookThrew: {
    code: 'WARN_AMBIENT_DIAGNOSTICS_HOOK_THREW',
    message: (error: string) =>
      `The diagnostics onReport hook threw, and the report was still emitted: ${error} ` +
      `(${readme}#enablediagnosticsoptions).`,
  },
  sharedDataLoader: {
    code: 'WARN_AMBIENT_SHARED_DATALOADER',
    message: (loader: string, site: string, owner: string, found: string, stack: string) =>
      `The DataLoader${loader} created at ${site} batched a load of request ${owner} with request ${found}'s, so ` +
      `its batch function ran in the context of ${found}: create one loader per request, in the function that ` +
      `builds the GraphQL context (${readme}#acting-on-a-report).\n${stack}`,
  },
  twoCopies: {
    code: 'WARN_AMBIENT_TWO_COPIES',
    message: (copies: string) =>
      `Copies of @ambient/core of different release lines are loaded and share no context: install one version ` +
      `(${readme}#acting-on-a-report).\n${copies}`,
  },
});

export type DiagnosticsErrorCode = CodesOf<typeof errors>;
export type DiagnosticsError = AmbientError<DiagnosticsErrorCode>;
export type DiagnosticsWarningCode = WarningCodesOf<typeof warnings>;

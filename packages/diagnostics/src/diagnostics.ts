import { requestContext } from '@ambient/core';
import { diagnosticsProbe, setDiagnosticsProbe, type DiagnosticsProbe } from '@ambient/core/adapter';
import { capabilities } from './capabilities.js';
import { copiesWatcher } from './copies.js';
import { watchDriverChannels } from './driver-channels.js';
import { watchEnterWith } from './enter-with.js';
import { lostContextDetector } from './lost-context.js';
import { resolveOptions, type DiagnosticsOptions } from './options.js';
import type { DiagnosticsCounts } from './reports.js';
import { Reporter } from './reporter.js';
import { OpenRequests } from './requests.js';
import { RetainedScopes } from './retained.js';
import { trackTimers } from './timers.js';

/** Diagnostics while they are on. */
export interface Diagnostics {
  /** How many of each report so far, and what is open or pending now. */
  report(): DiagnosticsCounts;
  /** Switches diagnostics off: every wrapper and subscriber is removed, and nothing more is reported. */
  disable(): void;
}

let active: Diagnostics | undefined;

/**
 * Switches diagnostics on for this process (once: a second call returns the same handle) and reports, each as
 * a process warning with a stable code and to `onReport`: reads that lost their request's context, driver
 * callbacks that ran in another request's, scopes still reachable after their request closed, timers a request
 * left pending, `enterWith` outside any scope, incompatible copies of @ambient/core; and, first, one
 * capability line. Off (never called, or disabled), Ambient pays one read of an unset field where a report
 * could start.
 */
export function enableDiagnostics(options?: DiagnosticsOptions): Diagnostics {
  const resolved = resolveOptions(options);
  if (active !== undefined) return active;
  const reporter = new Reporter(resolved);
  const retained = new RetainedScopes(reporter, resolved.retainedAfterMs);
  const requests = new OpenRequests(reporter, retained, resolved.timerGraceMs, (place, owner) =>
    probe.boundary(place, owner),
  );
  const checkCopies = copiesWatcher(reporter);
  const probe: DiagnosticsProbe = {
    missedRead: lostContextDetector(reporter, resolved.strict, () => requests.open > 0),
    requestOpened(req, res, requestId) {
      checkCopies();
      requests.opened(req, res, requestId);
    },
    boundary(place, ownerRequestId) {
      // Crossed is another request's context; none at all is a lost context, which reads there report.
      const found = requestContext.active ? requestContext.get('requestId') : undefined;
      if (ownerRequestId === undefined || found === undefined || found === ownerRequestId) return;
      reporter.report({
        kind: 'crossed',
        code: 'WARN_AMBIENT_CONTEXT_CROSSED',
        place,
        ownerRequestId,
        foundRequestId: found,
      });
    },
  };
  const undos = [
    trackTimers(() => requests.timersOfCurrent()),
    watchEnterWith(reporter),
    ...(resolved.drivers ? [watchDriverChannels(reporter)] : []),
    () => retained.stop(),
  ];
  const replaced = setDiagnosticsProbe(probe);
  reporter.report({ kind: 'capabilities', code: 'WARN_AMBIENT_DIAGNOSTICS_ON', capabilities: capabilities() });
  checkCopies();
  const diagnostics: Diagnostics = {
    report: () => ({
      ...reporter.counts,
      openRequests: requests.open,
      retainedNow: retained.retainedNow,
      watched: retained.watched,
    }),
    disable() {
      if (active !== diagnostics) return;
      active = undefined;
      if (diagnosticsProbe() === probe) setDiagnosticsProbe(replaced);
      for (const undo of undos.reverse()) undo();
    },
  };
  active = diagnostics;
  return diagnostics;
}

const off: DiagnosticsCounts = Object.freeze({
  lost: 0,
  crossed: 0,
  retained: 0,
  timers: 0,
  enterWith: 0,
  copies: 0,
  openRequests: 0,
  retainedNow: 0,
  watched: 0,
});

/** The counts of the diagnostics that are on, or zeros while they are off. */
export function report(): DiagnosticsCounts {
  return active?.report() ?? off;
}

/**
 * Is `AMBIENT_DIAGNOSTICS` set to switch diagnostics on? `1` or `true` for on, `strict` for on and strict.
 */
export function diagnosticsFromEnvironment(value: string | undefined): DiagnosticsOptions | undefined {
  if (value === '1' || value === 'true') return {};
  if (value === 'strict') return { strict: true };
  return undefined;
}

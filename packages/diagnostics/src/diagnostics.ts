import { requestContext } from '@ambient/core';
import { scopeObject, sharedState, type DiagnosticsProbe } from '@ambient/core/internal';
import { capabilities, majorCollectionsObservable } from './capabilities.js';
import { copiesWatcher } from './copies.js';
import { watchDataLoader } from './data-loader.js';
import { watchDriverChannels } from './driver-channels.js';
import { watchEnterWith } from './enter-with.js';
import { warnings } from './errors.js';
import { lostContextDetector } from './lost-context.js';
import { resolveOptions, type DiagnosticsOptions } from './options.js';
import type { DiagnosticsCounts } from './reports.js';
import { noReports, printable, Reporter } from './reporter.js';
import { OpenRequests } from './requests.js';
import { watchResponseEnds } from './response-ends.js';
import { RetainedScopes } from './retained.js';
import { rootTimers } from './root-timers.js';
import { trackTimers } from './timers.js';

/** Diagnostics while they are on. */
export interface Diagnostics {
  /** How many of each report so far, and what is open or pending now. */
  report(): DiagnosticsCounts;
  /** Switches diagnostics off: every wrapper and subscriber is removed, and nothing more is reported. */
  disable(): void;
}

/**
 * The diagnostics that are on, whichever copy of this package switched them on: the ESM and CJS builds (an
 * `--import` and a later `require`) must not wrap the timers twice and report everything twice.
 */
const holder = sharedState<{ active: Diagnostics | undefined }>('@ambient/diagnostics.active', () => ({
  active: undefined,
}));

/** Where the probe that every Ambient package reports to is installed (core reads it: diagnosticsProbe()). */
const installed = sharedState<{ probe?: DiagnosticsProbe }>('@ambient/diagnostics.probe', () => ({}));

/**
 * Switches diagnostics on for this process and reports, each as a process warning with a stable code and to
 * `onReport`: reads that lost their request's context, responses and driver callbacks that ran in another
 * request's, scopes still reachable after their request closed, timers a request left pending, `enterWith`
 * outside any scope, incompatible copies of @ambient/core, DataLoaders shared between requests (option
 * `dataLoader`); and, first, one capability line. Already on, it returns the handle that is on (with options,
 * after a warning that they are not applied). Off (never called, or disabled), Ambient pays one read of an unset
 * field where a report could start.
 */
export function enableDiagnostics(options?: DiagnosticsOptions): Diagnostics {
  const resolved = resolveOptions(options);
  const active = holder.active;
  if (active !== undefined) {
    if (options !== undefined) warnings.alreadyOn();
    return active;
  }
  const reporter = new Reporter(resolved);
  const retained = new RetainedScopes(reporter, resolved.retainedAfterMs);
  const checkCopies = copiesWatcher(reporter);
  const boundary = (place: string, ownerRequestId: string | undefined): void => {
    // Crossed is another request's context; none at all is a lost context, which reads there report.
    const found = scopeObject(requestContext)?.requestId;
    if (ownerRequestId === undefined || found === undefined || found === ownerRequestId) return;
    reporter.crossed(place, ownerRequestId, found);
  };
  const responseEnds = watchResponseEnds(boundary);
  const requests = new OpenRequests(
    reporter,
    retained,
    resolved.timerGraceMs,
    responseEnds.follow,
    // Where no full collection can be observed (Bun, Deno), no scope is watched: none could ever be decided.
    majorCollectionsObservable() ? resolved.retainedSampleEvery : Number.POSITIVE_INFINITY,
  );
  const probe: DiagnosticsProbe = {
    missedRead: lostContextDetector(reporter, resolved.strict, () => requests.open > 0),
    requestOpened(req, res, requestId) {
      // Diagnostics never break the request they follow: a failure is reported once, and the request goes on.
      try {
        checkCopies();
        requests.opened(req, res, requestId);
      } catch (error) {
        warnings.failed(printable(error instanceof Error ? error.message : String(error)));
      }
    },
    boundary,
  };
  // One timer for every periodic check, outside any request: a quarter of the shorter age, within 50 ms to 1 s.
  const period = Math.max(50, Math.min(1000, resolved.timerGraceMs / 4, resolved.retainedAfterMs / 4));
  const checks = rootTimers.every(period, () => {
    requests.checkTimers();
    retained.check();
  });
  const undos = [
    () => checks.stop(),
    () => responseEnds.undo(),
    trackTimers(() => requests.timersOfCurrent()),
    watchEnterWith(reporter),
    ...(resolved.drivers ? [watchDriverChannels(reporter)] : []),
    ...(resolved.dataLoader === undefined ? [] : [watchDataLoader(resolved.dataLoader, reporter)]),
    () => retained.stop(),
  ];
  const replaced = installed.probe;
  installed.probe = probe;
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
      if (holder.active !== diagnostics) return;
      holder.active = undefined;
      reporter.stopped = true;
      if (installed.probe === probe) installed.probe = replaced;
      for (const undo of undos.reverse()) undo();
    },
  };
  holder.active = diagnostics;
  return diagnostics;
}

const off: DiagnosticsCounts = Object.freeze({
  ...noReports(),
  openRequests: 0,
  retainedNow: 0,
  watched: 0,
});

/** The counts of the diagnostics that are on, or zeros while they are off. */
export function diagnosticsReport(): DiagnosticsCounts {
  return holder.active?.report() ?? off;
}

/**
 * What `AMBIENT_DIAGNOSTICS` asks for: `1` or `true` on, `strict` on and strict; unset or empty, off. Anything
 * else stays off, with a warning (WARN_AMBIENT_DIAGNOSTICS_ENV_IGNORED): a typo must not pass for "on".
 */
export function diagnosticsFromEnvironment(value: string | undefined): DiagnosticsOptions | undefined {
  if (value === '1' || value === 'true') return {};
  if (value === 'strict') return { strict: true };
  if (value !== undefined && value !== '') warnings.environmentIgnored(printable(value));
  return undefined;
}

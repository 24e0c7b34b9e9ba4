import { callSite, type CallSite } from './call-site.js';
import { warnings } from './errors.js';
import type { ResolvedOptions } from './options.js';
import type { Capabilities, DiagnosticKind, DiagnosticReport } from './reports.js';

type Counted = Exclude<DiagnosticKind, 'capabilities'>;

/** A count of each kind of report, all zero: where a new kind is added. */
export function noReports(): Record<Counted, number> {
  return { lost: 0, crossed: 0, retained: 0, timers: 0, enterWith: 0, copies: 0, sharedDataLoader: 0 };
}

/** Counts every report, and hands it to the process's warnings and to the user's hook. */
export class Reporter {
  readonly counts: Record<Counted, number> = noReports();
  readonly #options: ResolvedOptions;
  /** Set by disable(): a request still open then, or a finalizer, reports nothing more. */
  stopped = false;

  constructor(options: ResolvedOptions) {
    this.#options = options;
  }

  /** The places reported so far, each a kind and where in the code (see firstAt). */
  readonly #reportedPlaces = new Set<string>();

  /**
   * Is this the first report of `kind` at `site` (a call site, or a boundary and a call site)? Marks it: each
   * place is reported once, however often it happens.
   */
  firstAt(kind: Counted, site: string): boolean {
    const place = `${kind} ${site}`;
    if (this.#reportedPlaces.has(place)) return false;
    this.#reportedPlaces.add(place);
    return true;
  }

  /**
   * Code that belongs to request `owner` ran in `found`'s context at `place`: reported once for each place and
   * call site (the first frame of the application's code), counted every time.
   */
  crossed(place: string, ownerRequestId: string, foundRequestId: string): void {
    if (this.stopped) return;
    const { site, stack } = callSite();
    this.counts.crossed++;
    if (!this.firstAt('crossed', `${place} at ${site}`)) return;
    const code = 'WARN_AMBIENT_CONTEXT_CROSSED';
    this.report({ kind: 'crossed', code, place, site, stack, ownerRequestId, foundRequestId }, { counted: true });
  }

  /**
   * A DataLoader created at `created` batched a load of request `owner` with a batch request `found` opened:
   * reported once for each place a loader is created, counted every time.
   */
  sharedDataLoader(
    loader: string | undefined,
    created: CallSite,
    ownerRequestId: string,
    foundRequestId: string,
  ): void {
    if (this.stopped) return;
    this.counts.sharedDataLoader++;
    if (!this.firstAt('sharedDataLoader', created.site)) return;
    const code = 'WARN_AMBIENT_SHARED_DATALOADER';
    const { site, stack } = created;
    this.report(
      { kind: 'sharedDataLoader', code, loader, site, stack, ownerRequestId, foundRequestId },
      { counted: true },
    );
  }

  /** `counted`: the caller has counted it already (a retained scope is counted each time, reported once a route). */
  report(report: DiagnosticReport, { counted = false }: { counted?: boolean } = {}): void {
    if (this.stopped) return;
    if (report.kind !== 'capabilities' && !counted) this.counts[report.kind]++;
    if (this.#options.warnings) emitWarning(report);
    const hook = this.#options.onReport;
    if (hook === undefined) return;
    try {
      hook(report);
    } catch (error) {
      warnings.hookThrew(error instanceof Error ? error.message : String(error));
    }
  }
}

function emitWarning(report: DiagnosticReport): void {
  switch (report.kind) {
    case 'capabilities':
      return warnings.capabilities(capabilityLine(report.capabilities));
    case 'lost':
      return warnings.contextLost(report.context, report.site, report.stack);
    case 'crossed':
      return warnings.contextCrossed(
        report.place,
        printable(report.ownerRequestId),
        report.foundRequestId === undefined ? 'no request' : printable(report.foundRequestId),
        report.site,
        report.stack,
      );
    case 'retained':
      return warnings.scopeRetained(printable(report.requestId), report.route, report.ageMs, report.pending);
    case 'timers':
      return warnings.timerOutlived(
        printable(report.requestId),
        report.route,
        report.timers.map((timer) => `  ${timer.kind}, armed\n${indent(timer.stack)}`).join('\n'),
      );
    case 'enterWith':
      return warnings.rootEnterWith(report.site, report.stack);
    case 'sharedDataLoader':
      return warnings.sharedDataLoader(
        report.loader === undefined ? '' : ` "${printable(report.loader)}"`,
        report.site,
        printable(report.ownerRequestId),
        printable(report.foundRequestId),
        report.stack,
      );
    case 'copies':
      return warnings.twoCopies(report.copies.map((copy) => `  ${copy.version} at ${copy.path}`).join('\n'));
  }
}

/**
 * An id as a warning prints it: adapters validate the ids they accept, but an app may set its own
 * (`requestContext.set`, fastify's genReqId), so only printable ASCII is kept, `max` characters at most.
 */
export const printable = (text: string, max = 128): string => text.replace(/[^\x20-\x7e]/g, '?').slice(0, max);

const indent = (stack: string): string =>
  stack
    .split('\n')
    .map((line) => `    ${line.trim()}`)
    .join('\n');

export function capabilityLine(capabilities: Capabilities): string {
  const channels = capabilities.guardedChannels.length > 0 ? capabilities.guardedChannels.join(', ') : 'none';
  const patched =
    capabilities.patchedMethods.length > 0 ? `; driver methods patched: ${capabilities.patchedMethods.join(', ')}` : '';
  return (
    `${capabilities.runtime}; context propagates through ${propagation(capabilities.implementation)}; ` +
    `AsyncLocalStorage#withScope ${capabilities.withScope ? 'available' : 'not available'}; ` +
    `native AsyncContext ${capabilities.nativeAsyncContext ? 'present' : 'absent'}; ` +
    `driver channels guarded: ${channels}${patched}; copies of @ambient/core: ${capabilities.coreCopies}` +
    (capabilities.missing.length > 0 ? `; not available here: ${capabilities.missing.join(', ')}` : '')
  );
}

const propagation = (implementation: Capabilities['implementation']): string =>
  implementation === 'runtime' ? 'the runtime’s own AsyncLocalStorage' : implementation;

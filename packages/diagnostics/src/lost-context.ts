import { callSite } from './call-site.js';
import { errors } from './errors.js';
import type { Reporter } from './reporter.js';

/**
 * A read of a context that found no scope, while requests are being served: the code that read it runs for a
 * request but lost its context on the way (an emitter, a pool callback, a thenable; peers.md §2.2). Reported
 * once per call site with the stack of its first miss; strict, it throws (for tests). Reads while no request
 * is open (startup, a worker between jobs) are not reported: they have no request to lose.
 */
export function lostContextDetector(
  reporter: Reporter,
  strict: boolean,
  requestsOpen: () => boolean,
): (context: string) => void {
  const reported = new Set<string>();
  return (context) => {
    if (!requestsOpen()) return;
    const { site, stack } = callSite();
    if (strict) throw errors.contextLost(context, site);
    if (reported.has(site)) return;
    reported.add(site);
    reporter.report({ kind: 'lost', code: 'WARN_AMBIENT_CONTEXT_LOST', context, site, stack });
  };
}

import { requestContext } from '@ambient/core';
import { callSite } from './call-site.js';
import { errors } from './errors.js';
import type { Reporter } from './reporter.js';

/**
 * A read of a context that found no scope, while requests are being served and outside every request's scope:
 * the code that read it runs for a request but lost its context on the way (an emitter, a pool callback, a
 * thenable; peers.md §2.2). A context of your own read inside a request that did not open it is no lost
 * request, and reads while no request is open (startup, a worker between jobs) have no request to lose.
 * Reported once per call site with the stack of its first miss; strict, it throws (for tests). A stack trace
 * per miss is what finding the call site costs, so a second miss in the same synchronous run (a log line reads
 * several fields) is not looked at again.
 */
export function lostContextDetector(
  reporter: Reporter,
  strict: boolean,
  requestsOpen: () => boolean,
): (context: string) => void {
  const reported = new Set<string>();
  let lookedAtThisTurn = false;
  const nextTurn = () => {
    lookedAtThisTurn = false;
  };
  return (context) => {
    if (!requestsOpen() || requestContext.active) return;
    if (!strict && lookedAtThisTurn) return;
    lookedAtThisTurn = true;
    queueMicrotask(nextTurn);
    const { site, stack } = callSite();
    if (strict) throw errors.contextLost(context, site);
    if (reported.has(site)) return;
    reported.add(site);
    reporter.report({ kind: 'lost', code: 'WARN_AMBIENT_CONTEXT_LOST', context, site, stack });
  };
}

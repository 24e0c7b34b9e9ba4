import { requestContext } from '@ambient/core';
import { callSite } from './call-site.js';
import { errors } from './errors.js';
import type { Reporter } from './reporter.js';

/**
 * A read of a context that found no scope while requests are being served and outside every request's scope:
 * the code that read it runs for a request but lost its context on the way (an emitter, a pool callback, a
 * thenable). Reads while no request is open have no request to lose. Reported once per call site with the stack
 * of its first miss; strict, it throws. Finding the call site costs a stack trace, so a second miss in the same
 * synchronous run (a log line reads several fields) is not looked at again.
 */
export function lostContextDetector(
  reporter: Reporter,
  strict: boolean,
  requestsOpen: () => boolean,
): (context: string) => void {
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
    if (!reporter.firstAt('lost', site)) return;
    reporter.report({ kind: 'lost', code: 'WARN_AMBIENT_CONTEXT_LOST', context, site, stack });
  };
}

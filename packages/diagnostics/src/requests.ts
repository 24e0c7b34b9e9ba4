import { EventEmitter } from 'node:events';
import { requestContext } from '@ambient/core';
import { scopeObject } from '@ambient/core/internal';
import { RetainedScopes, type WatchedRequest } from './retained.js';
import { printable, type Reporter } from './reporter.js';
import { ownFrames } from './call-site.js';
import { stillPending, type ArmedTimer } from './timers.js';

/** A closed request with timers still pending, to look at again once the grace has passed. */
interface TimerCheck {
  readonly requestId: string;
  readonly timers: Set<ArmedTimer>;
  readonly route: string;
  readonly due: number;
}

interface RequestLike {
  readonly method?: unknown;
  readonly url?: unknown;
  readonly originalUrl?: unknown;
  readonly route?: { readonly path?: unknown };
  readonly routeOptions?: { readonly url?: unknown };
  readonly _matchedRoute?: unknown;
}

// eslint-disable-next-line @typescript-eslint/unbound-method -- called with the response as `this`, below
const onResponse = EventEmitter.prototype.on as (this: object, event: 'close', listener: () => void) => unknown;

/**
 * Follows each HTTP request from its scope's opening to its response's `close`: how many are open (a read that
 * finds no scope is only a lost context while some are), the timers each arms, and its scope after close.
 * Holds no scope itself (the retained-scope watch keeps it weakly): requests are known by id, and the close
 * listener keeps only ids, strings and the request object it names the route from.
 */
export class OpenRequests {
  /** The requests open now, by id, and how many of them hold it (an incoming id may come twice). */
  readonly #openIds = new Map<string, number>();
  /** The timers each open request has armed and not yet run or cleared: only requests that armed one. */
  readonly #armedBy = new Map<string, Set<ArmedTimer>>();
  readonly #reporter: Reporter;
  readonly #retained: RetainedScopes;
  readonly #timerGraceMs: number;
  readonly #followEnd: (res: object, requestId: string) => void;
  #timerChecks: TimerCheck[] = [];
  readonly #sampleEvery: number;
  #sampled = 0;
  open = 0;

  constructor(
    reporter: Reporter,
    retained: RetainedScopes,
    timerGraceMs: number,
    followEnd: (res: object, requestId: string) => void,
    sampleEvery: number,
  ) {
    this.#sampleEvery = sampleEvery;
    this.#reporter = reporter;
    this.#retained = retained;
    this.#timerGraceMs = timerGraceMs;
    this.#followEnd = followEnd;
  }

  /**
   * Called inside the request's scope, as it opens. What every request pays, diagnostics on, is kept to a Map
   * entry by id, a property on `res` and a close listener: a WeakMap entry per request cost more than the rest
   * together under load (benchmarks/README.md#why-the-code-looks-the-way-it-does).
   */
  opened(req: RequestLike, res: object, requestId: string): void {
    this.open++;
    this.#openIds.set(requestId, (this.#openIds.get(requestId) ?? 0) + 1);
    // Watched for retention one request in `retainedSampleEvery`: a FinalizationRegistry entry keeps its scope
    // through young collections until the next full one, which at thousands of requests a second is old-space
    // growth and garbage-collector time. A leak on a route leaks on each of its requests, so a sample finds it.
    const scope = ++this.#sampled % this.#sampleEvery === 0 ? scopeObject(requestContext) : undefined;
    const watched = scope === undefined ? undefined : this.#retained.watch(scope, requestId);
    this.#followEnd(res, requestId);
    // Through EventEmitter's own `on`, not the response's: bindEmitter would wrap this listener in the request's
    // context, which it does not need.
    onResponse.call(res, 'close', () => this.#closed(req, requestId, watched));
  }

  #closed(req: RequestLike, requestId: string, watched: WatchedRequest | undefined): void {
    this.open--;
    const holders = this.#openIds.get(requestId)! - 1;
    if (holders === 0) this.#openIds.delete(requestId);
    else this.#openIds.set(requestId, holders);
    const timers = this.#armedBy.get(requestId);
    if (holders === 0) this.#armedBy.delete(requestId);
    if (watched === undefined && timers === undefined) return;
    const route = routeOf(req);
    const closedAt = RetainedScopes.now();
    if (watched !== undefined) {
      watched.route = route;
      watched.closedAt = closedAt;
    }
    if (timers !== undefined && timers.size > 0) {
      this.#timerChecks.push({ requestId, timers, route, due: closedAt + this.#timerGraceMs });
    }
  }

  /** The pending-timer set of the open request whose scope is current, if diagnostics follow one. */
  timersOfCurrent(): Set<ArmedTimer> | undefined {
    if (this.open === 0) return undefined;
    const requestId = scopeObject(requestContext)?.requestId;
    if (requestId === undefined || !this.#openIds.has(requestId)) return undefined;
    let timers = this.#armedBy.get(requestId);
    if (timers === undefined) this.#armedBy.set(requestId, (timers = new Set()));
    return timers;
  }

  /** Reports the closed requests whose grace has passed with timers still pending. */
  checkTimers(): void {
    if (this.#timerChecks.length === 0) return;
    const now = RetainedScopes.now();
    const due = this.#timerChecks.filter((check) => check.due <= now);
    if (due.length === 0) return;
    this.#timerChecks = this.#timerChecks.filter((check) => check.due > now);
    for (const { requestId, timers, route } of due) {
      const pending = [...timers].filter(stillPending);
      if (pending.length === 0) continue;
      // Counted for every request, reported once for each place a timer is armed: fifteen requests through one
      // handler are one report.
      this.#reporter.counts.timers++;
      const located = pending.map(({ kind, armedAt }) => ({ kind, armed: armedAt() }));
      const newSites = new Set(
        [...new Set(located.map(({ armed }) => armed.site))].filter((site) => this.#reporter.firstAt('timers', site)),
      );
      const fresh = located.filter(({ armed }) => newSites.has(armed.site));
      if (fresh.length === 0) continue;
      this.#reporter.report(
        {
          kind: 'timers',
          code: 'WARN_AMBIENT_TIMER_OUTLIVED_REQUEST',
          requestId,
          route,
          timers: fresh.map(({ kind, armed }) => ({ kind, stack: ownFrames(armed.stack) })),
        },
        { counted: true },
      );
    }
  }
}

/**
 * How a report names a request: the framework's route pattern where it has one (express `req.route.path`,
 * fastify `routeOptions.url`, koa-router `_matchedRoute`), else the method and the path without its query, each
 * segment with a digit or longer than 32 characters shown as `:id` (ids and tokens are the client's, and stay out
 * of logs). Printable ASCII only, 200 characters at most.
 */
function routeOf(req: RequestLike): string {
  const pattern = req.route?.path ?? req.routeOptions?.url ?? req._matchedRoute;
  const method = typeof req.method === 'string' ? req.method : 'request';
  const url = typeof req.originalUrl === 'string' ? req.originalUrl : req.url;
  const path =
    typeof pattern === 'string'
      ? pattern
      : typeof url === 'string'
        ? url
            .split('?')[0]!
            .split('/')
            .map((segment) => (/\d/.test(segment) || segment.length > 32 ? ':id' : segment))
            .join('/')
        : '';
  return printable(`${method} ${path}`, 200);
}

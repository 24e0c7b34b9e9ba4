import { EventEmitter } from 'node:events';
import { requestContext } from '@ambient/core';
import { scopeObject } from '@ambient/core/adapter';
import { RetainedScopes } from './retained.js';
import type { Reporter } from './reporter.js';
import { stillPending, type ArmedTimer } from './timers.js';

interface OpenRequest {
  readonly requestId: string;
  /** The timers it armed and has not yet run or cleared; made on its first timer (most requests arm none). */
  timers: Set<ArmedTimer> | undefined;
}

/** A closed request with timers still pending, to look at again once the grace has passed. */
interface TimerCheck {
  readonly request: OpenRequest;
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
 * Holds no scope itself: requests are looked up through a WeakMap keyed by the scope object, and the close
 * listener keeps only ids and strings.
 */
export class OpenRequests {
  readonly #byScope = new WeakMap<object, OpenRequest>();
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

  /** Called inside the request's scope, as it opens. */
  opened(req: RequestLike, res: object, requestId: string): void {
    const scope = scopeObject(requestContext);
    if (scope === undefined) return;
    const request: OpenRequest = { requestId, timers: undefined };
    this.#byScope.set(scope, request);
    this.open++;
    // Watched for retention one request in `retainedSampleEvery`: a FinalizationRegistry entry keeps its scope
    // through young collections until the next full one, which at thousands of requests a second is old-space
    // growth and garbage-collector time (benchmarks/README.md#diagnostics-diagnosticsmjs). A leak on a route leaks on each of
    // its requests, so a sample finds it.
    const watched = ++this.#sampled % this.#sampleEvery === 0 ? this.#retained.watch(scope, requestId) : undefined;
    this.#followEnd(res, requestId);
    // Through EventEmitter's own `on`, not the response's: bindEmitter would wrap this listener in the request's
    // context, which it does not need.
    onResponse.call(res, 'close', () => {
      this.open--;
      if (watched === undefined && request.timers === undefined) return;
      const route = routeOf(req);
      const closedAt = RetainedScopes.now();
      if (watched !== undefined) {
        watched.route = route;
        watched.closedAt = closedAt;
      }
      if (request.timers !== undefined && request.timers.size > 0) {
        this.#timerChecks.push({ request, route, due: closedAt + this.#timerGraceMs });
      }
    });
  }

  /** The pending-timer set of the request whose scope is current, if diagnostics follow it. */
  timersOfCurrent(): Set<ArmedTimer> | undefined {
    const scope = scopeObject(requestContext);
    const request = scope === undefined ? undefined : this.#byScope.get(scope);
    if (request === undefined) return undefined;
    return (request.timers ??= new Set());
  }

  /** Reports the closed requests whose grace has passed with timers still pending. */
  checkTimers(): void {
    if (this.#timerChecks.length === 0) return;
    const now = RetainedScopes.now();
    const due = this.#timerChecks.filter((check) => check.due <= now);
    if (due.length === 0) return;
    this.#timerChecks = this.#timerChecks.filter((check) => check.due > now);
    for (const { request, route } of due) {
      const pending = [...(request.timers ?? [])].filter(stillPending);
      if (pending.length === 0) continue;
      this.#reporter.report({
        kind: 'timers',
        code: 'WARN_AMBIENT_TIMER_OUTLIVED_REQUEST',
        requestId: request.requestId,
        route,
        timers: pending.map(({ kind, armedAt }) => ({ kind, stack: armedAt().stack })),
      });
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
  return clean(`${method} ${path}`);
}

const clean = (text: string): string => text.replace(/[^\x20-\x7e]/g, '?').slice(0, 200);

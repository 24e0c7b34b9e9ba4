import { requestContext } from '@ambient/core';
import { scopeObject } from '@ambient/core/adapter';
import type { RetainedScopes } from './retained.js';
import type { Reporter } from './reporter.js';
import { rootTimers } from './root-timers.js';
import type { ArmedTimer } from './timers.js';

interface OpenRequest {
  readonly requestId: string;
  readonly timers: Set<ArmedTimer>;
}

interface RequestLike {
  readonly method?: unknown;
  readonly url?: unknown;
  readonly originalUrl?: unknown;
  readonly route?: { readonly path?: unknown };
  readonly routeOptions?: { readonly url?: unknown };
  readonly _matchedRoute?: unknown;
}

interface ResponseLike {
  once(event: 'close', listener: () => void): unknown;
  end?: (...args: unknown[]) => unknown;
}

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
  readonly #boundary: (place: string, ownerRequestId: string) => void;
  open = 0;

  constructor(
    reporter: Reporter,
    retained: RetainedScopes,
    timerGraceMs: number,
    boundary: (place: string, ownerRequestId: string) => void,
  ) {
    this.#reporter = reporter;
    this.#retained = retained;
    this.#timerGraceMs = timerGraceMs;
    this.#boundary = boundary;
  }

  /** Called inside the request's scope, as it opens. */
  opened(req: RequestLike, res: object, requestId: string): void {
    const scope = scopeObject(requestContext);
    if (scope === undefined) return;
    const request: OpenRequest = { requestId, timers: new Set() };
    this.#byScope.set(scope, request);
    this.open++;
    this.#checkResponseEnd(res as ResponseLike, requestId);
    const weakScope = new WeakRef(scope);
    (res as ResponseLike).once('close', () => {
      this.open--;
      const route = routeOf(req);
      const closedScope = weakScope.deref();
      if (closedScope !== undefined) this.#retained.watch(closedScope, requestId, route);
      rootTimers.after(this.#timerGraceMs, () => this.#reportTimers(request, route));
    });
  }

  /**
   * The code that ends a response is the request's own, whichever framework calls `res.end` (express's
   * res.send, koa's respond, fastify's reply.send): it must run in the request's scope. A handler whose flow
   * went through a callback that another request ran (a shared batch, a pool) ends its response there, and is
   * reported as crossed. Wraps this response's `end` only, while diagnostics are on.
   */
  #checkResponseEnd(res: ResponseLike, requestId: string): void {
    const end = res.end;
    if (typeof end !== 'function') return;
    const boundary = this.#boundary;
    res.end = function (this: unknown, ...args: unknown[]) {
      boundary('the response end', requestId);
      return Reflect.apply(end, this, args);
    };
  }

  /** The pending-timer set of the request whose scope is current, if diagnostics follow it. */
  timersOfCurrent(): Set<ArmedTimer> | undefined {
    const scope = scopeObject(requestContext);
    return scope === undefined ? undefined : this.#byScope.get(scope)?.timers;
  }

  #reportTimers(request: OpenRequest, route: string): void {
    if (request.timers.size === 0) return;
    this.#reporter.report({
      kind: 'timers',
      code: 'WARN_AMBIENT_TIMER_OUTLIVED_REQUEST',
      requestId: request.requestId,
      route,
      timers: [...request.timers].map(({ kind, stack }) => ({ kind, stack })),
    });
  }
}

/**
 * How a report names a request: the framework's route pattern where it has one (express `req.route.path`,
 * fastify `routeOptions.url`, koa-router `_matchedRoute`), else the method and the path without its query.
 * The path is the client's: cut to 200 characters, and only printable ASCII kept, so that no control
 * character or markup reaches a log.
 */
function routeOf(req: RequestLike): string {
  const pattern = req.route?.path ?? req.routeOptions?.url ?? req._matchedRoute;
  const method = typeof req.method === 'string' ? req.method : 'request';
  const url = typeof req.originalUrl === 'string' ? req.originalUrl : req.url;
  const path = typeof pattern === 'string' ? pattern : typeof url === 'string' ? url.split('?')[0]! : '';
  return clean(`${method} ${path}`);
}

const clean = (text: string): string => text.replace(/[^\x20-\x7e]/g, '?').slice(0, 200);

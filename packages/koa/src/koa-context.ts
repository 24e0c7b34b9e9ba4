import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestContext } from '@ambient/core';
import { captureContext, runInCapturedContext, type CapturedContext } from '@ambient/core/adapter';
import type { RequestContextOptions } from '@ambient/http-context';
import { createRequestPolicy, runInRequestScope } from '@ambient/http-context/adapter';

export type KoaContextOptions = RequestContextOptions;

/** What koaContext needs of koa's `ctx` (koa 2 and 3). */
export interface KoaContextLike {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  onerror(error: unknown): void;
}

type OnError = (this: KoaContextLike, error: unknown) => void;

/** Where a request's ctx keeps its scope and the header its id is echoed in (registered: the ESM and CJS builds share them). */
const kScope = Symbol.for('@ambient/koa-context.scope');
const kEchoHeader = Symbol.for('@ambient/koa-context.echoHeader');
/** Marks the ctx prototype (koa's `app.context`) whose onerror runs in the request's scope. */
const kBoundOnError = Symbol.for('@ambient/koa-context.boundOnError');

interface ScopedContext extends KoaContextLike {
  [kScope]?: CapturedContext | undefined;
  [kEchoHeader]?: string | undefined;
}

/**
 * koa 2 and 3 middleware: downstream middleware, the response, and koa's error handling run in the
 * request's requestContext scope, with listeners on `ctx.req`/`ctx.res` bound (nodejs/node#41285).
 */
export function koaContext(
  options?: KoaContextOptions,
): <C extends KoaContextLike>(ctx: C, next: () => Promise<unknown>) => Promise<unknown> {
  const policy = createRequestPolicy(options, 'koaContext(options)');
  const echoHeader = policy.echoHeader;
  return function ambientKoaContext(ctx, next) {
    return runInRequestScope(ctx.req, ctx.res, policy, () => {
      bindOnError(ctx, echoHeader);
      return next();
    });
  };
}

/**
 * koa calls ctx.onerror (which emits app.on('error')) from a promise handler it attached before any middleware
 * ran, so outside the request's scope (koa/lib/application.js, handleRequest): it must run in the scope. Each
 * ctx keeps its scope in a property; the onerror that reads it, and the echo header, are put once on the ctx's
 * prototype (koa's `app.context`, its documented place for what every ctx shares), not made per request: a
 * closure and a Snapshot per request were 150 of the bytes koa allocated beyond a hand-written middleware
 * (benchmarks/frameworks/allocations.mjs). A ctx with an onerror of its own is bound on itself.
 */
function bindOnError(ctx: ScopedContext, echoHeader: string | undefined): void {
  ctx[kScope] = captureContext();
  type Owner = Partial<KoaContextLike> & { [kBoundOnError]?: true; [kEchoHeader]?: string | undefined };
  const prototype = Object.getPrototypeOf(ctx) as Owner | null;
  const ownOnError = Object.hasOwn(ctx, 'onerror');
  if (prototype?.[kBoundOnError] === true && !ownOnError) {
    // The echo header is the same for every request through one middleware: kept on the prototype beside the
    // bound onerror, where it never changes once set, and on a ctx only where it differs (a second koaContext).
    if (ctx[kEchoHeader] !== echoHeader) ctx[kEchoHeader] = echoHeader;
    return;
  }
  // Not bound on the prototype yet, or bound on this ctx: its own, whatever the prototype gets later.
  ctx[kEchoHeader] = echoHeader;
  const owner: Owner = prototype !== null && !ownOnError && typeof prototype.onerror === 'function' ? prototype : ctx;

  const onerror = owner.onerror as OnError;
  owner.onerror = function ambientOnError(this: ScopedContext, error: unknown) {
    // koa also calls onerror(null) for every response that finishes without an error (on-finished's callback,
    // koa/lib/application.js handleRequest), and returns at once: no scope to enter for that.
    if (error === null || error === undefined || !(kScope in this)) return onerror.call(this, error);
    runInCapturedContext(this[kScope], () => onErrorInScope(this, onerror, error));
  };
  if (owner === prototype) {
    owner[kBoundOnError] = true;
    owner[kEchoHeader] = echoHeader;
  }
}

/**
 * koa removes every response header before answering an error, the echoed request id among them; the error's
 * own `headers` are what it sets back (koa/lib/context.js, onerror).
 */
function onErrorInScope(ctx: ScopedContext, onerror: OnError, error: unknown): void {
  const echoHeader = ctx[kEchoHeader];
  const requestId = requestContext.get('requestId'); // an error path must not throw: get, not require
  if (echoHeader !== undefined && requestId !== undefined && typeof error === 'object' && Object.isExtensible(error)) {
    const withHeaders = error as { headers?: Record<string, string> };
    withHeaders.headers = { ...withHeaders.headers, [echoHeader]: requestId };
  }
  onerror.call(ctx, error);
}

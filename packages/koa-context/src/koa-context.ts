import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestContext, Snapshot } from '@ambient/core';
import type { RequestContextOptions } from '@ambient/http-context';
import { createRequestPolicy, runInRequestScope } from '@ambient/http-context/internal';

export type KoaContextOptions = RequestContextOptions;

type OnError = (this: KoaContextLike, error: unknown) => void;

/**
 * On each onerror a koaContext bound, the one it calls: a nested koaContext binds that one instead. A property
 * of the bound function rather than a WeakMap, whose entry a request is work for the collector.
 */
const kUnbound = Symbol('ambient.koa.unbound');
type BoundOnError = OnError & { [kUnbound]?: OnError };

/** What koaContext needs of koa's `ctx` (koa 2 and 3). */
export interface KoaContextLike {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  onerror(error: unknown): void;
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
      // koa calls ctx.onerror (which emits app.on('error')) from a promise handler it attached before any
      // middleware ran, so outside this scope (koa/lib/application.js, handleRequest): bind it to the scope.
      // It also removes every response header before answering, the echoed id among them; the error's own
      // `headers` are what it sets back (koa/lib/context.js, onerror).
      // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with .call(this)
      const onerror: OnError = (ctx.onerror as BoundOnError)[kUnbound] ?? ctx.onerror;
      const scope = new Snapshot();
      const ambientOnError: BoundOnError = function (this: KoaContextLike, error: unknown) {
        // koa also calls onerror(null) for every response that finishes without an error: nothing to enter.
        if (error === null || error === undefined) return onerror.call(this, error);
        scope.run(() => {
          const requestId = requestContext.get('requestId'); // an error path must not throw: get, not require
          if (
            echoHeader !== undefined &&
            requestId !== undefined &&
            typeof error === 'object' &&
            Object.isExtensible(error)
          ) {
            const withHeaders = error as { headers?: Record<string, string> };
            withHeaders.headers = { ...withHeaders.headers, [echoHeader]: requestId };
          }
          onerror.call(this, error);
        });
      };
      ambientOnError[kUnbound] = onerror;
      ctx.onerror = ambientOnError;
      return next();
    });
  };
}

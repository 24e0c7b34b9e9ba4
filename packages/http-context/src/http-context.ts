import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestContext } from '@ambient/core';
import { errors } from './errors.js';
import { createRequestPolicy, type HttpContextOptions } from './options.js';
import { runInRequestScope } from './request-scope.js';

type ErrorHandler = NonNullable<HttpContextOptions['onError']>;

/**
 * Wraps a node:http request listener so that each request runs in its own requestContext scope for its
 * whole life: the listener, listeners it adds on `req` and `res`, timers it starts, and its error path.
 *
 *     http.createServer(httpContext((req, res) => res.end(requestContext.get('requestId'))));
 */
export function httpContext<
  Req extends IncomingMessage = IncomingMessage,
  Res extends ServerResponse<Req> = ServerResponse<Req>,
>(listener: (req: Req, res: Res) => unknown, options?: HttpContextOptions): (req: Req, res: Res) => void {
  const where = 'httpContext(listener, options)';
  if (typeof listener !== 'function') throw errors.invalidArgument(where, 'a request listener function', listener);
  const policy = createRequestPolicy(options, where, ['onError']);
  const onError = options?.onError ?? answerWithServerError;
  if (typeof onError !== 'function') {
    throw errors.invalidOption(where, 'onError', 'a function (error, req, res) => void', onError);
  }

  return function ambientRequestListener(req: Req, res: Res): void {
    runInRequestScope(req, res, policy, () => {
      try {
        const result = listener(req, res);
        if (isPromiseLike(result)) result.then(undefined, (error: unknown) => report(onError, error, req, res));
      } catch (error) {
        report(onError, error, req, res);
      }
    });
  };
}

function report(onError: ErrorHandler, error: unknown, req: IncomingMessage, res: ServerResponse): void {
  try {
    onError(error, req, res);
  } catch (secondError) {
    answerWithServerError(secondError, req, res);
  }
}

/** The default onError: nothing fails silently, and the server keeps serving. */
function answerWithServerError(error: unknown, _req: IncomingMessage, res: ServerResponse): void {
  console.error(`[ambient] request ${requestContext.get('requestId') ?? '(unknown)'} failed:`, error);
  if (!res.headersSent) {
    res.statusCode = 500;
    res.setHeader('content-length', '0');
    res.end();
  } else {
    res.destroy();
  }
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as PromiseLike<unknown>).then === 'function'
  );
}

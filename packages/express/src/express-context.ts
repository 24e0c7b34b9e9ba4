import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequestPolicy, runInRequestScope, type RequestContextOptions } from '@ambient/http-context';

export type ExpressContextOptions = RequestContextOptions;

/**
 * express 4 and 5 middleware: everything after it runs in the request's requestContext scope: later
 * middleware, routes, body parsers mounted before or after it, error middleware, and listeners on `req` and
 * `res` (a body parser's or multer's `data`/`end`, `finish`, `close`), which would otherwise run in the HTTP
 * parser's context (expressjs/body-parser#422, expressjs/express#4396, nodejs/node#41285).
 *
 * Typed against node's request and response, so it fits express 4 and 5 (and connect) without their types.
 */
export function expressContext(
  options?: ExpressContextOptions,
): (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void {
  const policy = createRequestPolicy(options, 'expressContext(options)');
  return function ambientExpressContext(req, res, next) {
    // next() is called inside the scope: express runs the rest of the stack, synchronously, from here.
    runInRequestScope(req, res, policy, next);
  };
}

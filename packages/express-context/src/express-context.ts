import { IncomingMessage, ServerResponse } from 'node:http';
import { bindEmitterPrototype } from '@ambient/core/internal';
import type { RequestContextOptions } from '@ambient/http-context';
import { createRequestPolicy, runInRequestScope } from '@ambient/http-context/internal';

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
  let boundRequestPrototype: object | undefined;
  let boundResponsePrototype: object | undefined;
  return function ambientExpressContext(req, res, next) {
    // express gives every req/res its app's prototype (app.request/app.response, Object.setPrototypeOf), which
    // makes adding the bound listener methods to each of them slow (see bindEmitterPrototype). Binding
    // the app's prototypes once covers every request of the app, and of apps mounted in it (a mounted app's
    // prototypes inherit from its parent's); runInRequestScope's own per-object binding then does nothing.
    const requestPrototype = Object.getPrototypeOf(req) as object;
    const responsePrototype = Object.getPrototypeOf(res) as object;
    // connect, or express mounted in a way that keeps Node's prototypes: bind the objects themselves.
    const ownPrototypes =
      requestPrototype !== IncomingMessage.prototype && responsePrototype !== ServerResponse.prototype;
    if (ownPrototypes && requestPrototype !== boundRequestPrototype) {
      bindEmitterPrototype(requestPrototype);
      boundRequestPrototype = requestPrototype;
    }
    if (ownPrototypes && responsePrototype !== boundResponsePrototype) {
      bindEmitterPrototype(responsePrototype);
      boundResponsePrototype = responsePrototype;
    }
    // next() is called inside the scope: express runs the rest of the stack, synchronously, from here.
    runInRequestScope(req, res, policy, next, { emittersBound: ownPrototypes });
  };
}

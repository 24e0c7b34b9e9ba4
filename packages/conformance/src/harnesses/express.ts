import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { ConformanceHarness, RunningServer } from '../harness.js';
import { sendJson, serveOnLoopback } from '../node-http-harness.js';

type Next = (error?: unknown) => void;
interface ExpressRequest extends IncomingMessage {
  readonly path: string;
  readonly body?: unknown;
}
type Middleware = (req: ExpressRequest, res: ServerResponse, next: Next) => void;
type ErrorMiddleware = (error: unknown, req: ExpressRequest, res: ServerResponse, next: Next) => void;

/** The parts of an express module (4 or 5) the harness uses; pass the module you test against. */
export interface ExpressModule {
  (): ((req: IncomingMessage, res: ServerResponse) => void) & {
    use(...handlers: Array<Middleware | ErrorMiddleware>): unknown;
  };
  json(): Middleware;
  urlencoded(options: { extended: boolean }): Middleware;
}

export interface ExpressHarnessOptions extends Omit<ConformanceHarness, 'start' | 'bodyParsers'> {
  /** The express module under test: `express` for 5, an npm alias such as `express4` for 4. */
  readonly express: ExpressModule;
  /** The library's context middleware, mounted first (as its README shows). */
  readonly contextMiddleware: readonly Middleware[];
}

/** A harness serving the suite's app with express, with its JSON/urlencoded parsers before or after the context. */
export function expressHarness(options: ExpressHarnessOptions): ConformanceHarness {
  const { express, contextMiddleware, ...readers } = options;
  return {
    ...readers,
    bodyParsers: ['before', 'after'],
    start(app, { bodyParser }): Promise<RunningServer> {
      const server = express();
      const parsers = [express.json(), express.urlencoded({ extended: false })];
      if (bodyParser === 'before') server.use(...parsers);
      server.use(...contextMiddleware);
      if (bodyParser === 'after') server.use(...parsers);
      const suiteMiddleware: Middleware = (req, res, next) => {
        app.middleware(req, res).then(() => next(), next);
      };
      const route: Middleware = (req, res, next) => {
        let result;
        try {
          // A parser that ran consumed the stream; express 4 sets `body` to {} even for types it skipped.
          result = app.handle({ req, res, path: req.path, body: req.readableEnded ? req.body : undefined });
        } catch (error) {
          next(error); // the synchronous error path
          return;
        }
        // express 5 would also route a rejection to the error middleware; express 4 would not.
        result.then((response) => sendJson(res, response), next);
      };
      const onError: ErrorMiddleware = (error, _req, res, _next) => {
        sendJson(res, app.handleError(error));
      };
      server.use(suiteMiddleware, route, onError);
      return serveOnLoopback(http.createServer(server));
    },
  };
}

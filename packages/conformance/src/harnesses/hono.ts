import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AppResponse, ConformanceHarness, RunningServer } from '../harness.js';
import { serveOnLoopback } from '../node-http-harness.js';

/** The parts of a Hono context the harness uses, on `@hono/node-server` (whose `env` holds Node's request). */
interface HonoContext {
  readonly env: unknown;
  readonly req: {
    readonly path: string;
    header(name: string): string | undefined;
    json(): Promise<unknown>;
    parseBody(): Promise<unknown>;
  };
  json(body: unknown, status: AppResponse['status']): Response;
  get(key: 'harnessBody'): unknown;
  set(key: 'harnessBody', value: unknown): void;
}
export type HonoMiddleware = (c: HonoContext, next: () => Promise<void>) => Promise<Response | void>;
type HonoHandler = (c: HonoContext) => Promise<Response>;

/** The parts of a Hono app (4 or 5) the harness uses. */
interface HonoApp {
  use(path: string, ...middleware: HonoMiddleware[]): unknown;
  all(path: string, handler: HonoHandler): unknown;
  onError(handler: (error: Error, c: HonoContext) => Response): unknown;
  readonly fetch: (request: Request, env?: unknown) => Response | Promise<Response>;
}
/** `Hono`, the class under test. */
export type HonoModule = new () => HonoApp;

export interface HonoHarnessOptions extends Omit<ConformanceHarness, 'start' | 'bodyParsers'> {
  /** The Hono constructor under test. */
  readonly hono: HonoModule;
  /** `createAdaptorServer` of the `@hono/node-server` under test (1 or 2): an http.Server around `fetch`. */
  readonly createAdaptorServer: (options: { fetch: HonoApp['fetch'] }) => Server;
  /** The library's context middleware, mounted first (as its README shows). */
  readonly contextMiddleware: readonly HonoMiddleware[];
}

/**
 * A harness serving the suite's app with Hono on `@hono/node-server`: the context middleware, with a middleware
 * reading JSON and urlencoded bodies with Hono's own `c.req.json()`/`c.req.parseBody()` before or after it, then
 * one route for every path, and `app.onError` answering with the suite's error response.
 */
export function honoHarness(options: HonoHarnessOptions): ConformanceHarness {
  const { hono: Hono, createAdaptorServer, contextMiddleware, ...readers } = options;
  return {
    ...readers,
    bodyParsers: ['none', 'before', 'after'],
    start(app, { bodyParser }): Promise<RunningServer> {
      const server = new Hono();
      if (bodyParser === 'before') server.use('*', parseBody);
      server.use('*', ...contextMiddleware);
      if (bodyParser === 'after') server.use('*', parseBody);
      server.all('*', async (c) => {
        const { req, res } = nodeObjects(c);
        await app.middleware(req, res);
        const body = req.readableEnded ? c.get('harnessBody') : undefined;
        const response = await app.handle({ req, res, path: c.req.path, body });
        return c.json(response.body, response.status);
      });
      server.onError((error, c) => {
        const response = app.handleError(error);
        return c.json(response.body, response.status);
      });
      return serveOnLoopback(createAdaptorServer({ fetch: server.fetch }));
    },
  };
}

/** Hono's body readers, for the two types the suite asks a framework to parse. */
const parseBody: HonoMiddleware = async (c, next) => {
  const type = c.req.header('content-type') ?? '';
  if (type.startsWith('application/json')) c.set('harnessBody', await c.req.json());
  else if (type.startsWith('application/x-www-form-urlencoded')) c.set('harnessBody', await c.req.parseBody());
  await next();
};

/** Node's request and response, which `@hono/node-server` passes as the app's `env`. */
function nodeObjects(c: HonoContext): { req: IncomingMessage; res: ServerResponse } {
  const env = c.env as { incoming?: IncomingMessage; outgoing?: ServerResponse } | undefined;
  if (env?.incoming === undefined || env.outgoing === undefined) {
    throw new Error('honoHarness serves through @hono/node-server, whose env carries Node’s request and response');
  }
  return { req: env.incoming, res: env.outgoing };
}

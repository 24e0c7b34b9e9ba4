import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { ConformanceHarness, RunningServer } from '../harness.js';
import { serveOnLoopback } from '../node-http-harness.js';

/** The parts of a koa context (koa 2 or 3) the harness uses. */
interface KoaContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly path: string;
  readonly request: { readonly body?: unknown };
  status: number;
  body: unknown;
}
export type KoaMiddleware = (ctx: KoaContext, next: () => Promise<unknown>) => unknown;

/** The parts of a koa module (2 or 3) the harness uses; pass the module you test against. */
export type KoaModule = new () => {
  use(middleware: KoaMiddleware): unknown;
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
};

export interface KoaHarnessOptions extends Omit<ConformanceHarness, 'start' | 'bodyParsers'> {
  /** The koa constructor under test: `koa` for 3, an npm alias such as `koa2` for 2. */
  readonly koa: KoaModule;
  /** A body parser middleware for JSON and urlencoded bodies (for instance `@koa/bodyparser`). */
  readonly bodyParser: () => KoaMiddleware;
  /** The library's context middleware, mounted first (as its README shows). */
  readonly contextMiddleware: readonly KoaMiddleware[];
}

/**
 * A harness serving the suite's app with koa: the context middleware, then the body parser before or after
 * it, then an error-handling middleware (try/catch around the rest, the usual koa pattern), then the suite.
 */
export function koaHarness(options: KoaHarnessOptions): ConformanceHarness {
  const { koa: Koa, bodyParser, contextMiddleware, ...readers } = options;
  return {
    ...readers,
    bodyParsers: ['before', 'after'],
    start(app, { bodyParser: placement }): Promise<RunningServer> {
      const server = new Koa();
      if (placement === 'before') server.use(bodyParser());
      for (const middleware of contextMiddleware) server.use(middleware);
      if (placement === 'after') server.use(bodyParser());
      server.use(async (ctx, next) => {
        try {
          await next();
        } catch (error) {
          const response = app.handleError(error);
          ctx.status = response.status;
          ctx.body = response.body;
        }
      });
      server.use(async (ctx, next) => {
        await app.middleware(ctx.req, ctx.res);
        await next();
      });
      server.use(async (ctx) => {
        // A parser that ran consumed the stream; some set an empty body for types they skip.
        const body = ctx.req.readableEnded ? ctx.request.body : undefined;
        const response = await app.handle({ req: ctx.req, res: ctx.res, path: ctx.path, body });
        ctx.status = response.status;
        ctx.body = response.body;
      });
      return serveOnLoopback(http.createServer(server.callback()));
    },
  };
}

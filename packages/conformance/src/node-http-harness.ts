import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AppResponse, ConformanceHarness, RunningServer } from './harness.js';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

export interface NodeHttpHarnessOptions extends Omit<ConformanceHarness, 'start' | 'bodyParsers'> {
  /**
   * Puts the library under test around the suite's listener. `listener` returns a promise that rejects
   * with what a route threw; hand the error to `onError` from the library's own error path, inside the
   * request's context (as an onError option, or a `.catch` within the library's scope).
   */
  readonly wrap: (
    listener: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
    onError: (error: unknown, req: IncomingMessage, res: ServerResponse) => void,
  ) => Listener;
}

/** A harness for libraries that wrap a plain `node:http` request listener (no framework, no body parser). */
export function nodeHttpHarness(options: NodeHttpHarnessOptions): ConformanceHarness {
  const { wrap, ...readers } = options;
  return {
    ...readers,
    async start(app) {
      const server = http.createServer(
        wrap(
          async (req, res) => {
            await app.middleware(req, res);
            sendJson(res, await app.handle({ req, res, path: new URL(req.url ?? '/', 'http://127.0.0.1').pathname }));
          },
          (error, _req, res) => sendJson(res, app.handleError(error)),
        ),
      );
      return serveOnLoopback(server);
    },
  };
}

/** Answers with the suite app's response as JSON: what every harness without a framework reply does. */
export function sendJson(res: ServerResponse, result: AppResponse): void {
  res.writeHead(result.status, { 'content-type': 'application/json' }).end(JSON.stringify(result.body));
}

/**
 * Listens on 127.0.0.1 on a free port; `close()` also closes keep-alive connections, so a suite never waits
 * on idle sockets. Any http.Server: node:http's own, or the one express, koa or fastify creates.
 */
export async function serveOnLoopback(server: Server): Promise<RunningServer> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the server has no port');
  return {
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

import type { Server } from 'node:http';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import type { ConformanceApp, ConformanceHarness, RunningServer, StartOptions } from '@ambient/conformance';

/**
 * Serves the suite's app with express 5, putting `contextMiddleware` first, as each library's README shows.
 * Used here to point the suite at third-party libraries.
 */
export function expressHarness(
  name: string,
  contextMiddleware: RequestHandler[],
  readers: Pick<ConformanceHarness, 'readRequestId' | 'setValue' | 'getValue' | 'readTrace'>,
): ConformanceHarness {
  return {
    name,
    bodyParsers: ['before', 'after'],
    ...readers,
    start: (app, options) => startExpress(app, options, contextMiddleware),
  };
}

async function startExpress(app: ConformanceApp, { bodyParser }: StartOptions, contextMiddleware: RequestHandler[]): Promise<RunningServer> {
  const server = express();
  const parsers = [express.json(), express.urlencoded({ extended: false })];
  if (bodyParser === 'before') server.use(...parsers);
  server.use(...contextMiddleware);
  if (bodyParser === 'after') server.use(...parsers);
  server.use((req, res, next) => {
    app.middleware(req, res).then(() => next(), next);
  });
  server.use((req, res, next) => {
    let result;
    try {
      result = app.handle({ req, res, path: req.path, body: req.body as unknown });
    } catch (error) {
      next(error);
      return;
    }
    result.then((response) => res.status(response.status).json(response.body), next);
  });
  const onError: ErrorRequestHandler = (error, _req, res, _next) => {
    const response = app.handleError(error);
    res.status(response.status).json(response.body);
  };
  server.use(onError);
  const listening: Server = await new Promise((resolve) => {
    const http = server.listen(0, '127.0.0.1', () => resolve(http));
  });
  const address = listening.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        listening.close(() => resolve());
        listening.closeAllConnections();
      }),
  };
}

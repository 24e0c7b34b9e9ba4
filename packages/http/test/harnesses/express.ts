import http from 'node:http';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { serveOnLoopback, type ConformanceApp, type ConformanceHarness, type RunningServer, type StartOptions } from '@ambient/conformance';

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
  return serveOnLoopback(http.createServer(server));
}

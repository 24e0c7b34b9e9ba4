import http from 'node:http';
import { describeConformance, type ConformanceHarness } from '@ambient/conformance';
import { httpContext, requestContext } from '@ambient/http-context';
import { close, listen } from './helpers/server.js';

declare module '@ambient/core' {
  interface RequestStore {
    user?: string;
    marker?: object;
  }
}

type SuiteKey = 'user' | 'marker';

const harness: ConformanceHarness = {
  name: 'node:http + @ambient/http-context',
  async start(app) {
    const server = http.createServer(
      httpContext(
        async (req, res) => {
          await app.middleware(req, res);
          const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
          const result = await app.handle({ req, res, path });
          res.writeHead(result.status, { 'content-type': 'application/json' }).end(JSON.stringify(result.body));
        },
        {
          // The suite's error handler, as httpContext's error path: it runs inside the request's scope.
          onError(error, _req, res) {
            const result = harness.readRequestId() === undefined ? { status: 599, body: {} } : app.handleError(error);
            res.writeHead(result.status, { 'content-type': 'application/json' }).end(JSON.stringify(result.body));
          },
        },
      ),
    );
    const port = await listen(server);
    return { port, close: () => close(server) };
  },
  readRequestId: () => requestContext.get('requestId'),
  readTrace: () => ({ traceId: requestContext.get('traceId'), spanId: requestContext.get('spanId') }),
  setValue: (key, value) => requestContext.set(key as SuiteKey, value as never),
  getValue: (key) => requestContext.get(key as SuiteKey),
};

describeConformance(harness, { describe, it, afterAll });

// express calls a middleware for errors only when it declares four parameters, so a wrapper that hides the
// arity turns an error handler into ordinary middleware: never called for a thrown error, and called with
// shifted arguments (`res.status is not a function`) when no route matched. Snapshot.wrap keeps the length,
// as the AsyncContext proposal's CopyNameAndLength step says.
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler } from 'express';
import express4 from 'express4';
import { Snapshot, Variable } from '@ambient/core';
import { expressContext, requestContext } from '@ambient/express-context';
import { send } from '@ambient/conformance';

const deployment = new Variable<string>({ name: 'deployment' });

describe.each([
  ['express 5', express],
  ['express 4', express4 as typeof express],
])('%s: an error handler wrapped by Snapshot.wrap', (_name, createExpress) => {
  let server: http.Server;
  let port: number;

  beforeAll(async () => {
    const app = createExpress();
    app.use(expressContext());
    app.get('/throws', () => {
      throw new Error('thrown in a route');
    });
    app.get('/passes', (_req, _res, next) => {
      setImmediate(() => next(new Error('passed to next')));
    });
    const handler: ErrorRequestHandler = (error: Error, _req, res, _next) => {
      res.status(500).json({
        message: error.message,
        deployment: deployment.get() ?? null,
        requestId: requestContext.get('requestId') ?? null,
      });
    };
    // Wrapped where the app is set up, in a flow that holds a value of its own: the handler sees that flow's
    // values, as Snapshot.wrap promises, and no request's.
    app.use(deployment.run('blue', () => Snapshot.wrap(handler)));
    server = http.createServer(app).listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });

  afterAll(() => {
    server.close();
  });

  it('keeps the four parameters and the name', () => {
    const wrapped = Snapshot.wrap(function onError(_e: unknown, _q: unknown, _s: unknown, _n: unknown) {});
    expect([wrapped.length, wrapped.name]).toEqual([4, 'wrapped onError']);
  });

  it.each([
    ['/throws', 'thrown in a route'],
    ['/passes', 'passed to next'],
  ])('handles the error of %s, with the snapshot values inside', async (path, message) => {
    const response = await send(port, { path, headers: { 'x-request-id': 'req-1' } });
    expect(response.status).toBe(500);
    expect(response.json).toEqual({ message, deployment: 'blue', requestId: null });
  });

  it('is skipped for a request no route matched: express answers 404 itself', async () => {
    const response = await send(port, { path: '/nowhere' });
    expect(response.status).toBe(404);
    expect(response.text).not.toMatch(/is not a function/);
  });
});

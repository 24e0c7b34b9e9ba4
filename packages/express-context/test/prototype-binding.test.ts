// express gives every request and response its app's prototype, and a mounted app's prototypes inherit from its
// parent's; expressContext binds those prototypes once instead of each request (see bindEmitterPrototype).
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express from 'express';
import express4 from 'express4';
import { expressContext, requestContext } from '@ambient/express-context';
import { send } from '@ambient/conformance';

describe.each([
  ['express 5', express],
  ['express 4', express4 as typeof express],
])('%s', (_name, createExpress) => {
  it('listeners added in a mounted sub-app run in the request scope; no method becomes an own property of req/res', async () => {
    const app = createExpress();
    const api = createExpress();
    app.use(expressContext());
    api.post('/upload', (req, res) => {
      const seen: Array<string | undefined> = [];
      req.on('data', () => seen.push(requestContext.get('requestId')));
      req.once('end', () => {
        seen.push(requestContext.get('requestId'));
        res.json({
          seen,
          ownOn: Object.prototype.hasOwnProperty.call(req, 'on') || Object.prototype.hasOwnProperty.call(res, 'on'),
        });
      });
    });
    app.use('/api', api);
    const server = http.createServer(app).listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    try {
      const responses = await Promise.all(
        ['one', 'two', 'three'].map((id) =>
          send(port, {
            method: 'POST',
            path: '/api/upload',
            headers: { 'x-request-id': id, 'content-type': 'text/plain' },
            body: ['a', 'b'],
            bodyDelayMs: 5,
          }),
        ),
      );
      for (const [i, id] of ['one', 'two', 'three'].entries()) {
        const { seen, ownOn } = responses[i]!.json as { seen: string[]; ownOn: boolean };
        expect(seen.length).toBeGreaterThanOrEqual(2);
        expect(new Set(seen)).toEqual(new Set([id]));
        expect(ownOn).toBe(false);
      }
    } finally {
      server.close();
    }
  });
});

import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express from 'express';
import pino from 'pino';
import { pinoHttp } from 'pino-http';
import { expressContext } from '@ambient/express-context';
import { correlationMixin, genReqId, requestContext } from '@ambient/pino-context';
import { send } from '@ambient/conformance';
import { logSink } from './log-lines.js';

async function serve(app: express.Express): Promise<{ port: number; close: () => void }> {
  const server = http.createServer(app);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { port: (server.address() as AddressInfo).port, close: () => server.close() };
}

describe('pino-http interop through genReqId', () => {
  it("makes req.id, req.log lines and pino-http's completion line carry Ambient's request id", async () => {
    const { stream, lines } = logSink();
    const logger = pino({ mixin: correlationMixin() }, stream);
    const app = express();
    app.use(expressContext());
    app.use(pinoHttp({ logger, genReqId }));
    app.get('/', async (req, res) => {
      req.log.info({ reqIdSeen: req.id }, 'from req.log');
      await new Promise((resolve) => setTimeout(resolve, 1));
      logger.info('from the shared logger');
      res.json({ id: req.id, context: requestContext.get('requestId') });
    });
    const { port, close } = await serve(app);
    try {
      const given = await send(port, { path: '/', headers: { 'x-request-id': 'client-chosen' } });
      const generated = await send(port, { path: '/' });
      expect(given.json).toEqual({ id: 'client-chosen', context: 'client-chosen' });
      const generatedId = generated.headers['x-request-id'];
      expect(generated.json).toEqual({ id: generatedId, context: generatedId });
      await new Promise((resolve) => setTimeout(resolve, 10));
      const forGiven = lines.filter((line) => line.requestId === 'client-chosen');
      expect(forGiven.map((line) => line.msg)).toEqual(['from req.log', 'from the shared logger', 'request completed']);
      for (const line of forGiven) {
        if ('reqId' in line) expect(line.reqId).toBe('client-chosen');
        if (line.req !== undefined) expect((line.req as { id: unknown }).id).toBe('client-chosen');
      }
      expect(lines.filter((line) => line.requestId === generatedId)).toHaveLength(3);
    } finally {
      close();
    }
  });

  it('outside a request keeps req.id or makes a UUID, and warns once with a stable code', async () => {
    const warn = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      const { stream } = logSink();
      const app = express();
      app.use(pinoHttp({ logger: pino(stream), genReqId })); // mounted before the adapter: the mistake
      app.use(expressContext());
      app.get('/', (req, res) => res.json({ id: req.id, context: requestContext.get('requestId') }));
      const { port, close } = await serve(app);
      try {
        const first = await send(port, { path: '/' });
        await send(port, { path: '/' });
        const { id, context } = first.json as { id: string; context: string };
        expect(id).toMatch(/^[0-9a-f-]{36}$/);
        expect(context).not.toBe(id);
        expect(warn).toHaveBeenCalledTimes(1);
        expect(warn.mock.calls[0]![1]).toMatchObject({ code: 'WARN_AMBIENT_PINO_HTTP_OUTSIDE_SCOPE' });
      } finally {
        close();
      }
      const withId = Object.assign(new http.IncomingMessage(null as never), { id: 'set-by-framework' });
      expect(genReqId(withId)).toBe('set-by-framework');
    } finally {
      warn.mockRestore();
    }
  });
});

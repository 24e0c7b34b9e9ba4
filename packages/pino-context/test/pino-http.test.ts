import http from 'node:http';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import express from 'express';
import pino from 'pino';
import { pinoHttp, type Options } from 'pino-http';
import { expressContext } from '@ambient/express-context';
import { requestContext } from '@ambient/core';
import { correlationMixin, pinoHttpGenReqId } from '@ambient/pino-context';
import { send } from '@ambient/conformance';
import { logSink, until, type LogLine } from './log-lines.js';

async function serve(app: express.Express): Promise<{ port: number; close: () => void }> {
  const server = http.createServer(app);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { port: (server.address() as AddressInfo).port, close: () => server.close() };
}

/** An express app with Ambient, then pino-http on a correlationMixin logger, answering GET / after an await. */
function appWith(options: Omit<Options, 'logger' | 'genReqId'>) {
  const { stream, lines } = logSink();
  const logger = pino({ mixin: correlationMixin() }, stream);
  const app = express();
  app.use(expressContext());
  app.use(pinoHttp({ logger, genReqId: pinoHttpGenReqId, ...options }));
  app.get('/', async (req, res) => {
    req.log.info('from req.log');
    await new Promise((resolve) => setTimeout(resolve, 1));
    logger.info('from the shared logger');
    res.json({ id: req.id, context: requestContext.get('requestId') });
  });
  return { app, lines };
}

/** Sends one request with the given id and one without; returns the lines each one's requestId tags. */
async function twoRequests(app: express.Express, lines: LogLine[]) {
  const { port, close } = await serve(app);
  try {
    const given = await send(port, { path: '/', headers: { 'x-request-id': 'client-chosen' } });
    const generated = await send(port, { path: '/' });
    const generatedId = generated.headers['x-request-id'] as string;
    expect(given.json).toEqual({ id: 'client-chosen', context: 'client-chosen' });
    expect(generated.json).toEqual({ id: generatedId, context: generatedId });
    // pino-http writes its line from the response's finish listener, after the client has the answer.
    await until(() => lines.filter((line) => line.msg === 'request completed').length >= 2);
    return [
      { id: 'client-chosen', lines: lines.filter((line) => line.requestId === 'client-chosen') },
      { id: generatedId, lines: lines.filter((line) => line.requestId === generatedId) },
    ];
  } finally {
    close();
  }
}

describe("the README's pino-http setup", () => {
  it('logs no incoming id it did not check: the id and trace headers are redacted on every line', async () => {
    const { stream, lines, raw } = logSink();
    const untrusted = ['x-request-id', 'x-correlation-id', 'traceparent', 'tracestate'];
    const logger = pino(
      { mixin: correlationMixin(), redact: untrusted.map((header) => `req.headers["${header}"]`) },
      stream,
    );
    const app = express();
    app.use(expressContext());
    app.use(pinoHttp({ logger, genReqId: pinoHttpGenReqId }));
    app.get('/', (req, res) => {
      req.log.info('from req.log');
      res.json({ id: req.id });
    });
    const { port, close } = await serve(app);
    const hostile = '"><img src=x onerror=alert(1)>';
    try {
      const answer = await send(port, { path: '/', headers: { 'x-request-id': hostile, traceparent: hostile } });
      await until(() => lines.some((line) => line.msg === 'request completed'));
      expect((answer.json as { id: string }).id).not.toBe(hostile);
    } finally {
      close();
    }
    expect(raw.some((line) => line.includes('onerror'))).toBe(false);
    const completed = lines.find((line) => line.msg === 'request completed') as { req: { headers: object } };
    expect(completed.req.headers).toMatchObject({ 'x-request-id': '[Redacted]', traceparent: '[Redacted]' });
  });
});

describe('pino-http 11 through pinoHttpGenReqId', () => {
  it('is the version the README describes', () => {
    const { version } = JSON.parse(readFileSync(require.resolve('pino-http/package.json'), 'utf8')) as {
      version: string;
    };
    expect(version).toMatch(/^11\./);
  });

  it("puts Ambient's id at req.id, in the serialized req of req.log lines and of the completion line", async () => {
    const { app, lines } = appWith({});
    const requests = await twoRequests(app, lines);
    for (const { id, lines: own } of requests) {
      expect(own.map((line) => line.msg)).toEqual(['from req.log', 'from the shared logger', 'request completed']);
      const [fromReqLog, fromShared, completed] = own as [LogLine, LogLine, LogLine];
      expect(fromReqLog.req).toMatchObject({ id, method: 'GET', url: '/' });
      expect(completed.req).toMatchObject({ id, method: 'GET', url: '/' });
      expect(completed.res).toMatchObject({ statusCode: 200 });
      expect(typeof completed.responseTime).toBe('number');
      expect(fromShared.req).toBeUndefined(); // the shared logger is not pino-http's child
      for (const line of own) expect(line).not.toHaveProperty('reqId'); // pino-http 11 writes no reqId by default
    }
    expect(lines).toHaveLength(6); // no line outside these two requests
  });

  it('with quietReqLogger, req.log lines carry reqId instead of req, and the completion line carries both', async () => {
    const { app, lines } = appWith({ quietReqLogger: true });
    const requests = await twoRequests(app, lines);
    for (const { id, lines: own } of requests) {
      const [fromReqLog, fromShared, completed] = own as [LogLine, LogLine, LogLine];
      expect(own.map((line) => line.msg)).toEqual(['from req.log', 'from the shared logger', 'request completed']);
      expect(fromReqLog.reqId).toBe(id);
      expect(fromReqLog).not.toHaveProperty('req');
      expect(completed.reqId).toBe(id);
      expect(completed.req).toMatchObject({ id });
      expect(fromShared).not.toHaveProperty('reqId');
    }
  });

  it('outside a request keeps req.id or makes a UUID, and warns once with a stable code', async () => {
    const warn = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      const { stream } = logSink();
      const app = express();
      app.use(pinoHttp({ logger: pino(stream), genReqId: pinoHttpGenReqId })); // mounted before the adapter: the mistake
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
      expect(pinoHttpGenReqId(withId)).toBe('set-by-framework');
    } finally {
      warn.mockRestore();
    }
  });
});

// 1,000 concurrent requests through express, each logging at several async depths through one shared pino
// logger: every line must carry its own request's id, and every request must have all its lines.
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import express from 'express';
import pino from 'pino';
import { expressContext } from '@ambient/express-context';
import { correlationMixin, requestLogger } from '@ambient/pino-context';
import { inParallel, send } from '@ambient/conformance';
import { logSink, until } from './log-lines.js';

const requests = 1000;
const depths = ['handler', 'after-await', 'timer', 'nested-async', 'emitter', 'request-logger', 'finish'];

async function lookUp(logger: pino.Logger, id: string): Promise<void> {
  await sleep(Math.random() * 5);
  await Promise.resolve();
  logger.debug({ depth: 'nested-async', id }, 'looked up');
}

it('gives every line of 1,000 concurrent requests its own request id', async () => {
  const { stream, lines } = logSink();
  const logger = pino({ level: 'debug', mixin: correlationMixin() }, stream);
  const plain = pino({ level: 'debug' }, stream);
  const app = express();
  app.use(expressContext());
  app.use((req, res, next) => {
    res.on('finish', () => logger.info({ depth: 'finish', id: req.params['id'] ?? req.path.slice(1) }, 'finished'));
    next();
  });
  app.get('/:id', async (req, res) => {
    const id = req.params.id;
    logger.info({ depth: 'handler', id }, 'received');
    await sleep(Math.random() * 5);
    logger.info({ depth: 'after-await', id }, 'awaited');
    await new Promise<void>((resolve) =>
      setTimeout(() => {
        logger.info({ depth: 'timer', id }, 'timer fired');
        resolve();
      }, Math.random() * 5),
    );
    await lookUp(logger, id);
    const emitter = new (await import('node:events')).EventEmitter();
    emitter.on('ready', () => logger.info({ depth: 'emitter', id }, 'event'));
    setImmediate(() => emitter.emit('ready'));
    await once(emitter, 'ready');
    requestLogger(plain).info({ depth: 'request-logger', id }, 'through requestLogger');
    res.json({ id });
  });
  const server = http.createServer(app);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 250 });
  try {
    const responses = await inParallel(requests, requests, (i) =>
      send(port, { path: `/${i}`, headers: { 'x-request-id': `request-${i}` }, agent }),
    );
    expect(responses.every((response) => response.status === 200)).toBe(true);
    await until(() => lines.length >= requests * depths.length); // the last 'finish' listeners

    expect(lines).toHaveLength(requests * depths.length);
    const wrong = lines.filter((line) => line.requestId !== `request-${String(line.id)}`);
    expect(wrong).toEqual([]);
    const perRequest = new Map<string, string[]>();
    for (const line of lines)
      perRequest.set(String(line.requestId), [...(perRequest.get(String(line.requestId)) ?? []), String(line.depth)]);
    expect(perRequest.size).toBe(requests);
    for (const seen of perRequest.values()) expect(seen.sort()).toEqual([...depths].sort());
  } finally {
    agent.destroy();
    server.close();
  }
}, 60_000);

// 1,000 concurrent requests through express, each logging at several async depths (awaits with random delays, a
// timer, an emitter, a pg query callback) through winston, bunyan and pino at once: every line of each logger
// carries its own request's ids, the three loggers' lines of a request agree, and a line outside any request
// carries none. winston writes to a transport that falls behind, so it formats most lines after their log call.
import http from 'node:http';
import { EventEmitter, once } from 'node:events';
import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import express from 'express';
import pg from 'pg';
import pino from 'pino';
import bunyan from 'bunyan';
import winston from 'winston';
import { expressContext } from '@ambient/express-context';
import { correlationMixin } from '@ambient/pino-context';
import { correlationStream } from '@ambient/bunyan-context';
import { correlationFormat, guardWinston } from '@ambient/winston-context';
import { guardDrivers, type DriverGuard } from '@ambient/drivers-context';
import { inParallel, send } from '@ambient/conformance';
import { describeWithServices, pgConfig } from '../../drivers-context/test/helpers/services.js';
import { sink, type Line } from './log-sink.js';

const requests = 1000;
const depths = ['handler', 'after-await', 'timer', 'emitter', 'query-callback'];
const ids = ['requestId', 'correlationId', 'traceId', 'spanId'] as const;

/** A stream of JSON lines, parsed back. */
function jsonLines(): { stream: Writable; lines: Line[] } {
  const lines: Line[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Line);
      callback();
    },
  });
  return { stream, lines };
}

describeWithServices(['postgres'], 'winston, bunyan and pino under 1,000 concurrent requests', () => {
  let drivers: DriverGuard;
  const winstonGuard = guardWinston({ winston });
  beforeAll(() => {
    drivers = guardDrivers({ pg });
  });
  afterAll(() => {
    drivers.dispose();
    winstonGuard.dispose();
  });

  it('gives every line its own request’s ids, the same in all three', async () => {
    const fromWinston = sink({ delay: 'immediate' });
    const fromBunyan = jsonLines();
    const fromPino = jsonLines();
    const loggers = {
      winston: winston.createLogger({
        format: winston.format.combine(correlationFormat(), winston.format.json()),
        transports: [fromWinston.transport],
      }),
      bunyan: bunyan.createLogger({ name: 'api', streams: [correlationStream({ stream: fromBunyan.stream })] }),
      pino: pino({ mixin: correlationMixin() }, fromPino.stream),
    };
    const logAll = (depth: string, id: string) => {
      loggers.winston.info('line', { depth, id });
      loggers.bunyan.info({ depth, id }, 'line');
      loggers.pino.info({ depth, id }, 'line');
    };
    const pool = new pg.Pool({ ...pgConfig, max: 5 });

    const app = express();
    app.use(expressContext());
    app.get('/:id', async (req, res) => {
      const id = req.params.id;
      logAll('handler', id);
      await sleep(Math.random() * 5);
      logAll('after-await', id);
      await new Promise<void>((resolve) => setTimeout(() => resolve(logAll('timer', id)), Math.random() * 5));
      const emitter = new EventEmitter();
      emitter.on('ready', () => logAll('emitter', id));
      setImmediate(() => emitter.emit('ready'));
      await once(emitter, 'ready');
      await new Promise<void>((resolve, reject) =>
        pool.query('SELECT 1', (error) => (error ? reject(error) : resolve(logAll('query-callback', id)))),
      );
      res.json({ id });
    });
    const server = http.createServer(app);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 200 });
    try {
      logAll('outside', 'none');
      const responses = await inParallel(requests, requests, (i) =>
        send(port, {
          path: `/${i}`,
          headers: {
            'x-request-id': `request-${i}`,
            'x-correlation-id': `chain-${i}`,
            traceparent: `00-${i.toString(16).padStart(32, 'a')}-${i.toString(16).padStart(16, 'b')}-01`,
          },
          agent,
        }),
      );
      expect(responses.every((response) => response.status === 200)).toBe(true);
      const total = requests * depths.length + 1;
      while (fromWinston.lines.length < total) await sleep(5);

      for (const [name, lines] of [
        ['winston', fromWinston.lines],
        ['bunyan', fromBunyan.lines],
        ['pino', fromPino.lines],
      ] as const) {
        expect([name, lines.length]).toEqual([name, total]);
        const outside = lines.filter((line) => line['depth'] === 'outside');
        expect([name, outside.map((line) => ids.map((field) => line[field]))]).toEqual([
          name,
          [[undefined, undefined, undefined, undefined]],
        ]);
        const wrong = lines.filter(
          (line) =>
            line['depth'] !== 'outside' &&
            (line['requestId'] !== `request-${String(line['id'])}` ||
              line['correlationId'] !== `chain-${String(line['id'])}`),
        );
        expect([name, wrong]).toEqual([name, []]);
      }
      // For each request and depth, the three loggers wrote the same ids, the trace included.
      const key = (line: Line) => `${String(line['id'])}/${String(line['depth'])}`;
      const byKey = new Map(fromPino.lines.map((line) => [key(line), ids.map((field) => line[field])]));
      for (const lines of [fromWinston.lines, fromBunyan.lines]) {
        const disagree = lines.filter(
          (line) => JSON.stringify(ids.map((field) => line[field])) !== JSON.stringify(byKey.get(key(line))),
        );
        expect(disagree).toEqual([]);
      }
    } finally {
      agent.destroy();
      server.close();
      await pool.end();
    }
  }, 120_000);
});

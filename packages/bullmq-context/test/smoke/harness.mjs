// The two sides of the end-to-end tests: an express app that enqueues in its handlers (this process), and a
// worker in a forked process (fixtures/worker.mjs). Shared by the ids-only and the OpenTelemetry tests.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
export const connection = { host: '127.0.0.1', port: 6379, maxRetriesPerRequest: null };

/**
 * A forked worker on `queue`; `completions(n)` waits for n completed jobs, never for a time. `otel`: none
 * (false), or the SDK registered with Ambient's context manager ('ambient') or with its own default ('stock').
 */
export async function startWorker(queue, { otel = false } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'ambient-bullmq-'));
  const logFile = join(dir, 'worker.log');
  const winstonFile = join(dir, 'worker-winston.log');
  const spanFile = join(dir, 'spans.json');
  const child = fork(new URL('./fixtures/worker.mjs', import.meta.url), {
    env: {
      ...process.env,
      QUEUE: queue,
      LOG_FILE: logFile,
      WINSTON_FILE: winstonFile,
      SPAN_FILE: spanFile,
      OTEL: otel || 'none',
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const completed = [];
  const problems = [];
  let waiter;
  child.on('message', (message) => {
    if (message?.completed !== undefined) completed.push(message);
    else if (message?.error !== undefined) problems.push(message.error);
    if (waiter !== undefined && completed.length >= waiter.count) waiter.resolve();
  });
  const [first] = await once(child, 'message');
  if (first !== 'ready') throw new Error(`the worker did not start: ${JSON.stringify(first)}`);
  return {
    completed,
    problems,
    completions: (count) =>
      new Promise((resolve) => {
        waiter = { count, resolve };
        if (completed.length >= count) resolve();
      }),
    async stop() {
      child.send('stop');
      await once(child, 'exit');
      return {
        lines: readLines(logFile),
        winstonLines: readLines(winstonFile),
        spans: otel ? JSON.parse(readFileSync(spanFile, 'utf8')) : [],
      };
    },
  };
}

/** Parses a file of JSON lines (pino's, winston's). */
function readLines(file) {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

/**
 * The producer: express with expressContext, one route per way of enqueueing, each writing an `enqueued` pino
 * line (correlationMixin) once BullMQ has the job; `lines()` reads them back.
 */
export async function startProducer({ queue, flows }) {
  const express = require('express');
  const { pino } = require('pino');
  const { expressContext, requestContext } = require('@ambient/express-context');
  const { correlationMixin } = require('@ambient/pino-context');
  const logFile = join(mkdtempSync(join(tmpdir(), 'ambient-bullmq-producer-')), 'producer.log');
  const logger = pino({ mixin: correlationMixin(), base: undefined }, pino.destination({ dest: logFile, sync: true }));
  const app = express();
  app.use(expressContext());
  app.use(express.json());
  const expected = (extra) => ({
    requestId: requestContext.get('requestId'),
    correlationId: requestContext.get('correlationId') ?? requestContext.get('requestId'),
    traceId: requestContext.get('traceId') ?? null,
    ...extra,
  });
  app.post('/job', async (req, res) => {
    const job = await queue.add('send', expected(req.body), req.body.attempts ? { attempts: req.body.attempts } : {});
    logger.info({ jobId: job.id }, 'enqueued');
    res.json({ jobId: job.id });
  });
  app.post('/flow', async (_req, res) => {
    const data = expected({ kind: 'flow' });
    const flow = await flows.add({
      name: 'parent',
      queueName: queue.name,
      data,
      // BullMQ attaches the telemetry metadata only to flow nodes that have opts (flow-producer.ts addNode).
      opts: {},
      children: [
        { name: 'child', queueName: queue.name, data, opts: {} },
        { name: 'child', queueName: queue.name, data, opts: {} },
      ],
    });
    logger.info({ jobId: flow.job.id }, 'enqueued');
    res.json({ jobId: flow.job.id });
  });
  app.post('/schedule', async (req, res) => {
    await queue.upsertJobScheduler(
      req.body.id,
      { every: 250, limit: 2 },
      { name: 'tick', data: expected({ kind: 'tick' }) },
    );
    res.json({ scheduled: req.body.id });
  });
  const server = http.createServer(app).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: server.address().port,
    lines: () => readLines(logFile),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** POSTs JSON to the producer; resolves to the response's x-request-id and body. */
export async function post(port, path, body, headers = {}) {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { requestId: response.headers.get('x-request-id'), body: await response.json() };
}

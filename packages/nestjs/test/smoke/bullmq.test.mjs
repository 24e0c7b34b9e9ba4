// @nestjs/bullmq with bullmqTelemetry(): a request to a Nest API enqueues a job, and a @Processor in another
// process (Nest 12, real Redis on 127.0.0.1:6379) runs it in a scope of its own caused by that request.
import assert from 'node:assert/strict';
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { Queue } from 'bullmq';
import { serviceSkip } from '../../../../scripts/services.mjs';
import { jsonLines, startNest } from './nest-process.mjs';

// Skipped only where Redis is not reachable on 127.0.0.1, with a loud warning; under CI=true serviceSkip throws.
const skip = await serviceSkip('redis');
const orders = 20;

function post(port, path, headers) {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, path, method: 'POST', headers }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode, headers: response.headers, body }));
    });
    request.on('error', reject);
    request.end();
  });
}

async function until(done, ms) {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  return done();
}

test(
  'a @Processor in another process logs with the enqueuing request as causation and correlation, and an id of its own',
  { skip },
  async () => {
    const queueName = `ambient-nest-${randomUUID()}`;
    const worker = await startNest('12', 'bullmq-app.ts', ['worker', queueName]);
    const api = await startNest('12', 'bullmq-app.ts', ['api', queueName]);
    const invoiced = () => jsonLines(worker.output.stdout).filter((line) => /^invoiced o\d+$/.test(line.message ?? ''));
    try {
      const responses = await Promise.all(
        Array.from({ length: orders }, (_, n) =>
          post(api.port, `/orders/o${n}`, { 'x-request-id': `req-${n}`, 'x-correlation-id': `chain-${n}` }),
        ),
      );
      for (const [n, response] of responses.entries()) {
        assert.equal(response.status, 201, response.body);
        assert.equal(response.headers['x-request-id'], `req-${n}`);
      }
      // The wait ends as soon as every job logged; only a failing run waits the whole minute.
      await until(() => invoiced().length === orders, 60_000);
    } finally {
      await api.stop();
      await worker.stop();
      const queue = new Queue(queueName, { connection: { host: '127.0.0.1', port: 6379 } });
      await queue.obliterate({ force: true });
      await queue.close();
    }
    const lines = invoiced();
    assert.equal(lines.length, orders, `the worker logged\n${worker.output.stdout}\n${worker.output.stderr}`);
    const runIds = new Set();
    for (const line of lines) {
      const n = line.message.slice('invoiced o'.length);
      assert.equal(line.causationId, `req-${n}`, `${line.message}: caused by its request`);
      assert.equal(line.correlationId, `chain-${n}`, `${line.message}: in its request's chain`);
      assert.match(line.requestId, /^[0-9a-f-]{36}$/, `${line.message}: a run id of its own`);
      assert.notEqual(line.requestId, `req-${n}`);
      assert.equal(line.job?.name, 'invoice');
      assert.equal(line.job?.queue, queueName);
      runIds.add(line.requestId);
    }
    assert.equal(runIds.size, orders, 'each run has its own id');
  },
);

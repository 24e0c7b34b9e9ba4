// The README's one-liner for sandboxed processors, run by BullMQ itself: the processor is a file BullMQ loads
// in a child process (and, in the second case, a worker thread), on the real Redis at 127.0.0.1:6379. Each run
// sees its producer (causation, correlation, trace), a fresh id of its own, and its job; a job added outside
// any request starts a fresh chain.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { connection } from './harness.mjs';
import { serviceSkip } from '../../../../scripts/services.mjs';

const require = createRequire(import.meta.url);
// Skipped only where the service is not reachable on 127.0.0.1, with a loud warning; under CI=true serviceSkip
// throws instead, so CI always runs it.
const skip = await serviceSkip('redis');
const processorFile = fileURLToPath(new URL('./fixtures/sandboxed-processor.mjs', import.meta.url));
const uuidv7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const traceId = '0af7651916cd43dd8448eb211c80319c';

for (const useWorkerThreads of [false, true]) {
  const where = useWorkerThreads ? 'a worker thread' : 'a child process';
  // `skip` (above): set only where Redis is not reachable on 127.0.0.1; under CI=true serviceSkip throws.
  test(`a sandboxed processor in ${where} runs each job as its own run`, { skip, timeout: 60_000 }, async () => {
    const { Queue, Worker } = require('bullmq');
    const { requestContext } = require('@ambient/core');
    const { bullmqTelemetry } = require('@ambient/bullmq-context');
    const name = `ambient-sandbox-${randomUUID()}`;
    const telemetry = bullmqTelemetry();
    const queue = new Queue(name, { connection, telemetry });
    // No execArgv for the sandbox: BullMQ hands it this process's, and under Node 24+'s test runner those include
    // --inspect-publish-uid, which BullMQ rewrites into a value Node then refuses (the sandbox never starts).
    const sandbox = { execArgv: [] };
    const worker = new Worker(name, processorFile, {
      connection,
      telemetry,
      concurrency: 4,
      useWorkerThreads,
      ...(useWorkerThreads ? { workerThreadsOptions: sandbox } : { workerForkOptions: sandbox }),
    });
    const results = new Map();
    const allDone = new Promise((resolve, reject) => {
      worker.on('completed', (job, result) => {
        results.set(job.name, { id: job.id, result });
        if (results.size === 4) resolve();
      });
      worker.on('failed', (_job, error) => reject(error));
    });
    try {
      await worker.waitUntilReady();
      for (const i of [1, 2, 3]) {
        const store = {
          requestId: `req-${i}`,
          traceId,
          spanId: String(i).padStart(16, '0'),
          traceFlags: '01',
          ...(i === 3 ? { correlationId: 'chain-3' } : {}),
        };
        await requestContext.run(store, () => queue.add(`job-${i}`, { i }));
      }
      await queue.add('outside', {});
      await allDone;
      const seen = [...results.values()].map(({ result }) => result);
      for (const i of [1, 2, 3]) {
        const { id, result } = results.get(`job-${i}`);
        assert.match(result.requestId, uuidv7);
        assert.equal(result.causationId, `req-${i}`);
        assert.equal(result.correlationId, i === 3 ? 'chain-3' : `req-${i}`);
        assert.equal(result.traceId, traceId);
        assert.deepEqual(result.job, { name: `job-${i}`, system: 'bullmq', id, queue: name, attempt: 1 });
      }
      const outside = results.get('outside').result;
      assert.match(outside.requestId, uuidv7);
      assert.equal(outside.causationId, undefined);
      assert.equal(outside.traceId, undefined);
      assert.equal(new Set(seen.map((result) => result.requestId)).size, 4);
      // Really sandboxed: a child process has its own pid; a worker thread shares this one.
      if (!useWorkerThreads) assert.ok(seen.every((result) => result.pid !== process.pid));
    } finally {
      await worker.close();
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });
}

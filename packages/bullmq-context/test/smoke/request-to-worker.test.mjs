// Ids only (no OpenTelemetry): a request enqueues, a worker in another process runs the job, on the real
// Redis at 127.0.0.1:6379. Each run's log lines carry a fresh requestId, the request as causationId, the
// chain's correlationId and the request's trace; nothing crosses between jobs.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { createRequire } from 'node:module';
import { connection, post, startProducer, startWorker } from './harness.mjs';
import { serviceSkip } from '../../../../scripts/services.mjs';

const require = createRequire(import.meta.url);
// Skipped only where the service is not reachable on 127.0.0.1, with a loud warning; under CI=true serviceSkip
// throws instead, so CI always runs it.
const skip = await serviceSkip('redis');
const uuidv7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';

// `skip` (above): set only where Redis is not reachable on 127.0.0.1; under CI=true serviceSkip throws.
test('request -> job -> job across processes, ids only', { skip, timeout: 120_000 }, async (t) => {
  const { FlowProducer, Queue } = require('bullmq');
  const { bullmqTelemetry } = require('@ambient/bullmq-context');
  const name = `ambient-e2e-${randomUUID()}`;
  const telemetry = bullmqTelemetry();
  const queue = new Queue(name, { connection, telemetry });
  const flows = new FlowProducer({ connection, telemetry });
  const worker = await startWorker(name);
  const producer = await startProducer({ queue, flows });
  let lines;
  let winstonLines;
  let producerLines;
  try {
    // 200 concurrent requests, half of them in a chain that already has a correlation id, all with a trace.
    const requests = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        post(
          producer.port,
          '/job',
          { n: i },
          {
            traceparent: `00-${traceId}-${String(i + 1).padStart(16, '0')}-01`,
            ...(i % 2 === 0 ? { 'x-correlation-id': `chain-${i}` } : {}),
          },
        ),
      ),
    );
    const retried = await post(producer.port, '/job', { failFirst: true, attempts: 2 });
    const chained = await post(producer.port, '/job', { followUp: true }, { 'x-correlation-id': 'chain-root' });
    const flow = await post(
      producer.port,
      '/flow',
      {},
      { traceparent: `00-${traceId}-00000000000000f1-01`, 'x-correlation-id': 'chain-flow' },
    );
    const scheduleId = `tick-${randomUUID()}`;
    const scheduled = await post(
      producer.port,
      '/schedule',
      { id: scheduleId },
      { traceparent: `00-${traceId}-00000000000000aa-01` },
    );
    await queue.add('outside', { kind: 'outside' }); // no request around it
    // 200 + retried + chained and its follow-up + parent and two children + two ticks + outside
    await worker.completions(200 + 1 + 2 + 3 + 2 + 1);
    await queue.removeJobScheduler(scheduleId);
    ({ lines, winstonLines } = await worker.stop());
    producerLines = producer.lines();
    assert.deepEqual(worker.problems, []);

    const processing = lines.filter((line) => line.msg === 'processing');
    const byCausation = (id) => processing.filter((line) => line.causationId === id);

    await t.test('200 concurrent requests: every run has its own request, fresh id, chain and trace', () => {
      for (const [i, request] of requests.entries()) {
        const runs = byCausation(request.requestId);
        assert.equal(runs.length, 1, `request ${i} ran once`);
        const [run] = runs;
        assert.equal(run.expected.requestId, request.requestId);
        assert.match(run.requestId, uuidv7);
        assert.notEqual(run.requestId, request.requestId);
        assert.equal(run.correlationId, i % 2 === 0 ? `chain-${i}` : request.requestId);
        assert.equal(run.traceId, traceId);
        assert.deepEqual(run.job, { name: 'send', id: request.body.jobId, system: 'bullmq', queue: name, attempt: 1 });
      }
      const mismatched = processing.filter(
        (line) =>
          line.expected?.requestId !== undefined &&
          line.jobName === 'send' &&
          line.expected.requestId !== line.causationId,
      );
      assert.equal(mismatched.length, 0, 'no job ran with another request');
      assert.equal(new Set(processing.map((line) => line.requestId)).size, processing.length, 'one id per run');
    });

    await t.test("a run's winston lines: the request's x-request-id as causationId, the run's own id", () => {
      for (const [i, request] of requests.entries()) {
        const [run] = byCausation(request.requestId);
        const written = winstonLines.filter(
          (line) => line.message === 'processing' && line.causationId === request.requestId,
        );
        assert.equal(written.length, 1, `request ${i}'s run wrote one winston line`);
        assert.equal(written[0].expected.requestId, request.requestId);
        assert.equal(written[0].requestId, run.requestId);
        assert.equal(written[0].correlationId, run.correlationId);
        assert.deepEqual(written[0].job, run.job);
      }
    });

    await t.test('after an await, a run still has its own id', () => {
      const done = lines.filter((line) => line.msg === 'done');
      for (const line of done) {
        const start = processing.find((candidate) => candidate.requestId === line.requestId);
        assert.ok(start, 'the done line belongs to a run that logged processing');
        assert.equal(start.job.id, line.job.id);
      }
    });

    await t.test('a retry keeps causation and correlation, with a new run id and the next attempt', () => {
      const runs = byCausation(retried.requestId).sort((a, b) => a.job.attempt - b.job.attempt);
      assert.equal(runs.length, 2);
      assert.deepEqual(
        runs.map((run) => run.job.attempt),
        [1, 2],
      );
      assert.notEqual(runs[0].requestId, runs[1].requestId);
      assert.equal(runs[1].correlationId, runs[0].correlationId);
    });

    await t.test('a job enqueued by a job: caused by that run, in the same chain', () => {
      const [parentRun] = byCausation(chained.requestId);
      assert.equal(parentRun.correlationId, 'chain-root');
      const followUp = processing.find((line) => line.jobName === 'follow-up');
      assert.equal(followUp.causationId, parentRun.requestId);
      assert.equal(followUp.correlationId, 'chain-root');
    });

    await t.test('a flow: the parent and both children are runs of the request, in its chain and trace', () => {
      const runs = byCausation(flow.requestId);
      assert.deepEqual(runs.map((run) => run.jobName).sort(), ['child', 'child', 'parent']);
      for (const run of runs) {
        assert.match(run.requestId, uuidv7);
        assert.equal(run.correlationId, 'chain-flow');
        assert.equal(run.traceId, traceId);
        assert.deepEqual(Object.keys(run.job).sort(), ['attempt', 'id', 'name', 'queue', 'system']);
        assert.equal(run.job.system, 'bullmq');
        assert.equal(run.job.attempt, 1);
      }
      assert.equal(new Set(runs.map((run) => run.requestId)).size, 3, 'a fresh id per node');
      assert.equal(new Set(runs.map((run) => run.job.id)).size, 3);
    });

    await t.test("the producer's lines and the worker's agree: the request's ids on both sides", () => {
      const enqueued = producerLines.filter((line) => line.msg === 'enqueued');
      for (const request of [...requests, flow]) {
        const [line] = enqueued.filter((candidate) => candidate.requestId === request.requestId);
        assert.ok(line, `the producer logged ${request.requestId}`);
        assert.equal(line.jobId, request.body.jobId);
        const [run] = processing.filter((candidate) => candidate.job.id === line.jobId);
        assert.equal(run.causationId, line.requestId);
        assert.equal(run.correlationId, line.correlationId ?? line.requestId);
        assert.equal(run.traceId, line.traceId);
      }
    });

    await t.test("a scheduler's runs: caused by the request that made it, linked rather than in its trace", () => {
      const ticks = processing.filter((line) => line.jobName === 'tick');
      assert.equal(ticks.length, 2);
      for (const tick of ticks) {
        assert.equal(tick.causationId, scheduled.requestId);
        assert.equal(tick.traceId, undefined);
        assert.match(tick.job.id, /^repeat:/);
      }
      assert.notEqual(ticks[0].requestId, ticks[1].requestId);
    });

    await t.test('a job added outside any request starts a fresh chain, never the previous job', () => {
      const [outside] = processing.filter((line) => line.jobName === 'outside');
      assert.match(outside.requestId, uuidv7);
      assert.equal(outside.causationId, undefined);
      assert.equal(outside.correlationId, undefined);
      assert.equal(outside.traceId, undefined);
    });
  } finally {
    await producer.close();
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
    await flows.close();
  }
});

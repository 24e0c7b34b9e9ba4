// A real Queue and Worker in this process, on the real Redis at 127.0.0.1:6379 (across processes:
// test/smoke/request-to-worker.test.mjs).
import { randomUUID } from 'node:crypto';
import { metrics } from '@opentelemetry/api';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import * as bullmq6 from 'bullmq';
import { Queue, Worker, type Job } from 'bullmq';
import * as bullmq5 from 'bullmq5';
import { BullMQOtel } from 'bullmq-otel';
import { requestContext, type RequestStore } from '@ambient/core';
import { bullmqProcessor, bullmqTelemetry, type JobLike } from '@ambient/bullmq-context';
import { describeWithRedis } from './helpers/redis.js';

const connection = { host: '127.0.0.1', port: 6379, maxRetriesPerRequest: null };

// BullMQ 6 and 5: the telemetry option is the same interface on both.
for (const [line, { Queue, Worker }] of [
  ['6', bullmq6],
  ['5', bullmq5 as unknown as typeof bullmq6],
] as const) {
  describeWithRedis(`bullmqTelemetry() with a real Queue and Worker of BullMQ ${line}`, () => {
    const telemetry = bullmqTelemetry();
    const name = `ambient-jest-${randomUUID()}`;
    let queue: Queue;
    let worker: Worker;
    const runs: Array<{ job: string; attempt: number; seen: Partial<RequestStore> | undefined }> = [];
    let expected = 0;
    let allDone: () => void;
    const done = new Promise<void>((resolve) => (allDone = resolve));

    beforeAll(async () => {
      queue = new Queue(name, { connection, telemetry });
      worker = new Worker(
        name,
        bullmqProcessor(async (job: Job) => {
          runs.push({ job: job.name, attempt: job.attemptsMade + 1, seen: requestContext.snapshot() });
          if (job.name === 'flaky' && job.attemptsMade === 0) throw new Error('first attempt fails');
        }),
        { connection, telemetry, concurrency: 4 },
      );
      worker.on('completed', () => {
        if (--expected === 0) allDone();
      });
      await worker.waitUntilReady();
    });

    afterAll(async () => {
      await worker.close();
      await queue.obliterate({ force: true });
      await queue.close();
    });

    it('runs jobs from a request, from nowhere and after a retry, each in a scope of its own', async () => {
      expected = 3;
      await requestContext.run({ requestId: 'req-1', correlationId: 'chain-1' }, () => queue.add('send', {}));
      await queue.add('outside', {});
      await requestContext.run({ requestId: 'req-2' }, () => queue.add('flaky', {}, { attempts: 2 }));
      await done;
      const send = runs.find((run) => run.job === 'send')!;
      expect(send.seen).toMatchObject({
        causationId: 'req-1',
        correlationId: 'chain-1',
        job: { system: 'bullmq', queue: name, name: 'send', attempt: 1 },
      });
      const outside = runs.find((run) => run.job === 'outside')!;
      expect(outside.seen?.causationId).toBeUndefined();
      const flaky = runs.filter((run) => run.job === 'flaky');
      expect(flaky.map((run) => run.seen?.job?.attempt)).toEqual([1, 2]);
      expect(flaky.map((run) => run.seen?.causationId)).toEqual(['req-2', 'req-2']);
      expect(flaky[0]!.seen?.requestId).not.toBe(flaky[1]!.seen?.requestId);
      expect(new Set(runs.map((run) => run.seen?.requestId)).size).toBe(runs.length);
    });
  });
}

describe('bullmqProcessor(processor) outside a Worker (a sandboxed processor)', () => {
  const snapshot = bullmqProcessor((_job: JobLike) => requestContext.snapshot());

  const metadata = JSON.stringify({ 'x-request-id': 'req-9', 'x-correlation-id': 'chain-9' });

  it("opens the job's run from its metadata, with the attempt", () => {
    const seen = snapshot({
      name: 'send',
      id: '3',
      queueName: 'mail',
      attemptsMade: 2,
      opts: { telemetry: { metadata } },
    });
    expect(seen).toMatchObject({
      causationId: 'req-9',
      correlationId: 'chain-9',
      job: { name: 'send', id: '3', system: 'bullmq', queue: 'mail', attempt: 3 },
    });
  });

  it('runs a job without metadata, name or attempts as a fresh chain', () => {
    const seen = snapshot({ name: '' });
    expect(seen).toMatchObject({ job: { name: 'job', system: 'bullmq' } });
    expect(seen?.causationId).toBeUndefined();
  });

  it('passes the rest of the arguments and the result through', async () => {
    const processor = bullmqProcessor(async (job: JobLike, token?: string) => [
      job.name,
      token,
      requestContext.get('job')?.name,
    ]);
    expect(await processor({ name: 'send' }, 'lock-token')).toEqual(['send', 'lock-token', 'send']);
  });

  it('refuses a processor that is no function, and a call with what is no job', () => {
    expect(() => bullmqProcessor('fn' as never)).toThrow(
      expect.objectContaining({ code: 'ERR_AMBIENT_BULLMQ_INVALID_ARGUMENT' }),
    );
    expect(() => snapshot(null as never)).toThrow(
      expect.objectContaining({ code: 'ERR_AMBIENT_BULLMQ_INVALID_ARGUMENT' }),
    );
  });
});

describeWithRedis(
  "bullmqTelemetry({ meter }) keeps BullMQ's job metrics, as bullmq-otel's own meter records them",
  () => {
    it('a real Worker counts its completed job on the meter given', async () => {
      const reader = new (class extends MetricReader {
        protected override onForceFlush = () => Promise.resolve();
        protected override onShutdown = () => Promise.resolve();
      })();
      const provider = new MeterProvider({ readers: [reader] });
      metrics.setGlobalMeterProvider(provider);
      const name = `ambient-jest-metrics-${randomUUID()}`;
      const telemetry = bullmqTelemetry({ meter: new BullMQOtel({ enableMetrics: true }).meter! });
      const queue = new Queue(name, { connection, telemetry });
      const worker = new Worker(name, async () => 'done', { connection, telemetry });
      try {
        const completed = new Promise((resolve) => worker.once('completed', resolve));
        await queue.add('measured', {});
        await completed;
        const { resourceMetrics } = await reader.collect();
        const recorded = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics);
        const counter = recorded.find((metric) => metric.descriptor.name === 'bullmq.jobs.completed');
        expect(counter?.dataPoints.map((point) => point.value)).toEqual([1]);
      } finally {
        await worker.close();
        await queue.obliterate({ force: true });
        await queue.close();
        metrics.disable();
        await provider.shutdown();
      }
    });

    it('refuses a meter that is not one', () => {
      expect(() => bullmqTelemetry({ meter: {} as never })).toThrow(
        expect.objectContaining({ code: 'ERR_AMBIENT_BULLMQ_INVALID_OPTION' }),
      );
    });
  },
);

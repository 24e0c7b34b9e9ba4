// A job's own `telemetry` options (BullMQ's `omitContext` and `metadata`) under bullmqTelemetry(), with a real
// Queue and Worker on the real Redis at 127.0.0.1:6379. What BullMQ 6.7 does with them decides what a run sees:
// Queue.add puts the producer's carrier in place of the job's metadata unless omitContext is set
// (classes/queue.js, add), so metadata given with omitContext, or outside any scope (where the carrier is empty
// and BullMQ stores nothing of ours), reaches the worker as it was written; Queue.addBulk keeps metadata the
// caller gave and adds the carrier only where there is none.
import { randomUUID } from 'node:crypto';
import { Queue, Worker, type Job, type JobsOptions } from 'bullmq';
import { requestContext, type RequestStore } from '@ambient/core';
import { bullmqTelemetry } from '@ambient/bullmq-context';
import { describeWithRedis } from './helpers/redis.js';

const connection = { host: '127.0.0.1', port: 6379, maxRetriesPerRequest: null };
const uuidv7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const producer = { requestId: 'req-1', correlationId: 'chain-1' };
// Metadata a caller wrote by hand: an id that fails the request-id rule, fields that are no carrier's, no JSON.
const garbage = JSON.stringify({
  'x-request-id': '<script>alert(1)</script>',
  'x-correlation-id': 'a b',
  traceparent: 'nonsense',
  requestId: 'forged',
  job: { system: 'forged' },
});
const notJson = 'not json';

describeWithRedis("bullmqTelemetry() with a job's own telemetry options", () => {
  const telemetry = bullmqTelemetry();
  const name = `ambient-jest-${randomUUID()}`;
  let queue: Queue;
  let worker: Worker;
  const runs = new Map<string, { seen: Partial<RequestStore> | undefined; stored: JobsOptions['telemetry'] }>();
  let waitingFor: { count: number; resolve: () => void } | undefined;

  /** Resolves once `count` more jobs have run. */
  const ran = (count: number) => new Promise<void>((resolve) => (waitingFor = { count: runs.size + count, resolve }));

  beforeAll(async () => {
    queue = new Queue(name, { connection, telemetry });
    worker = new Worker(
      name,
      (job: Job) => {
        // What the run sees, and the options BullMQ stored for the job and handed back to the worker.
        runs.set(job.name, { seen: requestContext.snapshot(), stored: job.opts.telemetry });
        if (waitingFor !== undefined && runs.size >= waitingFor.count) waitingFor.resolve();
        return Promise.resolve();
      },
      { connection, telemetry, concurrency: 4 },
    );
    await worker.waitUntilReady();
  });

  afterAll(async () => {
    await worker.close();
    await queue.obliterate({ force: true });
    await queue.close();
  });

  /** A run that starts a fresh chain: its own new id and the job, nothing of the producer or of the metadata. */
  function expectFreshChain(job: string): void {
    const { seen } = runs.get(job)!;
    expect(Object.keys(seen ?? {}).sort()).toEqual(['job', 'requestId']);
    expect(seen?.requestId).toMatch(uuidv7);
    expect(seen?.job).toMatchObject({ name: job, system: 'bullmq', queue: name });
    expect(JSON.stringify(seen)).not.toMatch(/<script>|a b|nonsense|forged|req-1|chain-1/);
  }

  it('Queue.add: omitContext starts a fresh chain; its sibling in the same scope carries the producer', async () => {
    const done = ran(6);
    await requestContext.run(producer, async () => {
      await queue.add('omitted', {}, { telemetry: { omitContext: true } });
      await queue.add('sibling', {});
      // Without omitContext BullMQ puts our carrier in place of the caller's metadata.
      await queue.add('garbage replaced', {}, { telemetry: { metadata: garbage } });
      await queue.add('garbage omitted', {}, { telemetry: { metadata: garbage, omitContext: true } });
    });
    // Outside any scope there is no carrier: the caller's metadata is stored as it is.
    await queue.add('garbage outside', {}, { telemetry: { metadata: garbage } });
    await queue.add('not json outside', {}, { telemetry: { metadata: notJson } });
    await done;

    expect(runs.get('omitted')!.stored).toEqual({ omitContext: true });
    expectFreshChain('omitted');
    for (const job of ['sibling', 'garbage replaced']) {
      const { seen, stored } = runs.get(job)!;
      expect(JSON.parse(stored!.metadata!)).toEqual({ 'x-request-id': 'req-1', 'x-correlation-id': 'chain-1' });
      expect(seen).toMatchObject({ causationId: 'req-1', correlationId: 'chain-1', job: { name: job } });
      expect(seen?.requestId).toMatch(uuidv7);
    }
    expect(runs.get('garbage omitted')!.stored).toEqual({ metadata: garbage, omitContext: true });
    expect(runs.get('garbage outside')!.stored).toEqual({ metadata: garbage });
    expect(runs.get('not json outside')!.stored).toEqual({ metadata: notJson });
    for (const job of ['garbage omitted', 'garbage outside', 'not json outside']) expectFreshChain(job);
    const ids = [...runs.values()].map((run) => run.seen?.requestId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("Queue.addBulk: the caller's metadata is kept even inside a scope, and starts a fresh chain", async () => {
    const done = ran(3);
    await requestContext.run(producer, () =>
      queue.addBulk([
        { name: 'bulk omitted', data: {}, opts: { telemetry: { omitContext: true } } },
        { name: 'bulk sibling', data: {} },
        { name: 'bulk garbage', data: {}, opts: { telemetry: { metadata: notJson } } },
      ]),
    );
    await done;

    expectFreshChain('bulk omitted');
    expect(runs.get('bulk sibling')!.seen).toMatchObject({ causationId: 'req-1', correlationId: 'chain-1' });
    expect(runs.get('bulk garbage')!.stored).toEqual({ metadata: notJson });
    expectFreshChain('bulk garbage');
  });
});

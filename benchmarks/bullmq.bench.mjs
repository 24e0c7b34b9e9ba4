// What Ambient costs a BullMQ job, in process: each job through BullMQ's own trace() as its Worker drives it
// (worker.js processJob, job.js moveToCompleted: a `process` span around the processor and a `complete` span in
// it, their attributes and event), no Redis. The variants are bullmq-variants.mjs's. The budgets, on Node 24
// (22 and 26 printed): bullmqTelemetry({ opentelemetry: false }) at most 1.5 µs a job over the hand-written
// Telemetry (parse the metadata, one id, one AsyncLocalStorage#run, through BullMQ's hook), the least this design
// costs; and bullmqTelemetry() with OpenTelemetry at most bullmq-otel plus what the ids alone add (ids only minus a
// no-op Telemetry). CPU ns a job over 20,000 jobs, the variants alternating in 5 rounds in each of 3 fresh
// processes; the paired per-round differences (the order rotating), with a second no-op Telemetry as the A/A control. lab/bullmq-worker.mjs drains a real
// Redis instead.
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { setUp } from './bullmq-variants.mjs';
import { budget, cpuRounds, fixed, freshProcesses, iqr, median, printTable, quantile } from './harness.mjs';

const require = createRequire(import.meta.url);
const jobs = 20_000;
const rounds = 5;
const processes = 3;
const queueName = 'bench';
// `none` (no telemetry on the worker) and bullmqProcessor (the processor wrapped, no telemetry) are printed beside.
const names = [
  'none',
  'no-op Telemetry',
  'hand-written Telemetry',
  'ambient ids only',
  'ambient bullmqProcessor',
  'bullmq-otel',
  'ambient + OpenTelemetry',
];

/** The metadata a job added inside a traced request carries, as `producer` wrote it (queue.js add). */
async function metadataOf(producer) {
  const { Queue } = require('bullmq');
  const { requestContext } = await import('@ambient/core');
  const tracer = require('@opentelemetry/api').trace.getTracer('bench');
  const queue = Object.assign(Object.create(Queue.prototype), { opts: { telemetry: producer }, name: queueName });
  let metadata;
  await requestContext.run({ requestId: randomUUID() }, () =>
    tracer.startActiveSpan('request', (span) =>
      queue.trace(4, 'add', queueName, async (_span, dst) => (metadata = dst)).then(() => span.end()),
    ),
  );
  return metadata;
}

/** A variant's next job, each call: a new job carrying its producer's metadata, an empty processor. */
export async function jobsOf({ producer, worker, wrap }) {
  const { trace } = require('bullmq/dist/cjs/utils');
  const { SpanKind, TelemetryAttributes: attribute } = require('bullmq');
  const metadata = await metadataOf(producer);
  const processor = wrap(async () => undefined);
  let n = 0;
  return () => {
    const job = {
      id: String(++n),
      name: 'send',
      data: {},
      attemptsMade: 0,
      queueName,
      opts: { telemetry: { metadata } },
    };
    const attributes = { [attribute.WorkerId]: 'worker-1', [attribute.JobId]: job.id, [attribute.JobName]: job.name };
    return trace(
      worker,
      SpanKind.CONSUMER,
      queueName,
      'process',
      queueName,
      async (span) => {
        span?.setAttributes(attributes);
        const result = await processor(job);
        await trace(worker, SpanKind.INTERNAL, queueName, 'complete', queueName, async (inner) => {
          inner?.setAttributes({ [attribute.JobName]: job.name, [attribute.JobId]: job.id });
        });
        span?.addEvent('job completed', { [attribute.JobResult]: JSON.stringify(result) });
        span?.setAttributes({ [attribute.JobAttemptsMade]: 1, [attribute.JobFinishedTimestamp]: Date.now() });
      },
      metadata,
    );
  };
}

/** The child: every variant's ns a job, round by round. */
async function measure() {
  const { variants, shutdown } = setUp();
  const units = {};
  for (const name of [...names, 'no-op Telemetry (A/A)'])
    units[name] = await jobsOf(variants[name.replace(' (A/A)', '')]);
  const ns = await cpuRounds(units, { count: jobs, rounds });
  await shutdown();
  process.stdout.write(JSON.stringify(ns));
}

export async function run() {
  const ns = {};
  for (const child of freshProcesses(fileURLToPath(import.meta.url), [], processes)) {
    for (const [name, values] of Object.entries(child)) (ns[name] ??= []).push(...values);
  }
  /** Per round: the first variant's ns minus the second's (and minus the third's, plus the fourth's). */
  const paired = (a, b, c, d) => ns[a].map((value, i) => value - ns[b][i] - (c ? ns[c][i] - ns[d][i] : 0));
  printTable(
    `BullMQ in process, Node ${process.version}: CPU ns a job, median of ${processes} processes x ${rounds} rounds`,
    [
      ['', 'ns a job', 'over none (IQR)'],
      ...Object.keys(ns).map((name) => {
        const over = paired(name, 'none');
        return [name, fixed(median(ns[name])), `${fixed(median(over))} (${iqr(over)})`];
      }),
    ],
  );
  const control = paired('no-op Telemetry (A/A)', 'no-op Telemetry');
  console.log(`  A/A, the no-op Telemetry against itself: ${fixed(median(control))} ns a job (IQR ${iqr(control)})`);
  const resolved = (values, limit) => quantile(values, 0.25) > limit === quantile(values, 0.75) > limit;
  const idsOnly = paired('ambient ids only', 'hand-written Telemetry');
  const withOtel = paired('ambient + OpenTelemetry', 'bullmq-otel', 'ambient ids only', 'no-op Telemetry');
  const judged = process.version.startsWith('v24.');
  const check = judged ? budget : (text) => console.log(`  (the budget is Node 24's) ${text}`);
  check(
    `bullmq: ids only ${fixed(median(idsOnly))} ns a job over the hand-written Telemetry (IQR ${iqr(idsOnly)}; <= 1,500)`,
    median(idsOnly) <= 1500,
    !resolved(idsOnly, 1500) && 'the IQR spans it',
  );
  check(
    `bullmq: with OpenTelemetry ${fixed(median(withOtel))} ns a job over bullmq-otel plus the ids' own cost (IQR ${iqr(withOtel)}; <= 0)`,
    median(withOtel) <= 0,
    !resolved(withOtel, 0) && 'the IQR spans it',
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === 'measure') await measure();
else if (process.argv[1] === fileURLToPath(import.meta.url)) await run();

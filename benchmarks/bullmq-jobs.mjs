// What Ambient costs a BullMQ worker per job. Budgets (issue #15): bullmqTelemetry() ids only at least 0.97x the
// jobs/s of no telemetry; with OpenTelemetry at least the jobs/s of bullmq-otel; the carrier at most 256 bytes a
// job.
//
// The variants are bullmq-variants.mjs's.
//
//   (a) In-process, the budget's repeatable measurement: BullMQ's own trace() (bullmq/dist/cjs/utils) driven for
//       each job as BullMQ 6.7's Worker drives it when the next job comes back with the previous one's
//       moveToCompleted: a `process` consumer span (worker.js processJob) with a `complete` span inside
//       (job.js moveToCompleted), their attributes and the completion event, around an async processor. No
//       Redis: ns per job over 20,000 jobs one after another, 15 alternating rounds, medians, and the paired
//       per-round differences from `none` with their interquartile range; a second `none` is the A/A control.
//       Divided by the worker's CPU time per job in (b), the difference is Ambient's share of a worker's work.
//   (b) On the real Redis at 127.0.0.1:6379: one process; the variants alternate round by round, each round a
//       fresh queue: 1000 jobs added with addBulk inside a request scope (so every job carries a carrier), then
//       one Worker (concurrency 10) runs them all; the time and the process's CPU time from the worker's start
//       to its last `completed` are the round's. Medians of the rounds, with the spread (min-max).
//
//   node benchmarks/bullmq-jobs.mjs          ((b) skips without Redis)
//   BULLMQ_IN_PROCESS_ONLY=1 node benchmarks/bullmq-jobs.mjs
//   BULLMQ_VARIANTS='ambient ids only' node --cpu-prof benchmarks/bullmq-jobs.mjs     (and none, for a profile)
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { reachable } from '../scripts/services.mjs';
import { setUp } from './bullmq-variants.mjs';
import { median, quantile, verdict } from './harness.mjs';

const require = createRequire(fileURLToPath(new URL('../packages/bullmq/package.json', import.meta.url)));
const jobsPerRound = 1000;
const rounds = Number(process.env.BULLMQ_ROUNDS ?? 15);
const inProcessRounds = 15;
const inProcessJobs = 20_000;
const queueName = 'bench';

/** The metadata a job added inside a traced request carries, as the producer wrote it. */
function metadataOf(producer) {
  const { Queue } = require('bullmq');
  const { requestContext } = require('@ambient/core');
  const api = require('@opentelemetry/api');
  let metadata;
  // Queue#trace with a callback of two parameters hands it the metadata BullMQ stores with the job (queue.js add).
  const queue = Object.assign(Object.create(Queue.prototype), { opts: { telemetry: producer }, name: queueName });
  const tracer = api.trace.getTracer('bench');
  return requestContext.run({ requestId: randomUUID() }, () =>
    tracer.startActiveSpan('request', (span) =>
      queue
        .trace(4, 'add', queueName, async (_span, dst) => (metadata = dst))
        .then(() => {
          span.end();
          return metadata;
        }),
    ),
  );
}

/**
 * One job, as BullMQ 6.7's Worker runs it when moveToCompleted of the job before brought it back: the `process`
 * consumer span around the processor and a `complete` span (worker.js processJob, handleCompleted; job.js
 * moveToCompleted, setSpanJobAttributes), with their attributes and event.
 */
function jobRunner(telemetry, processor) {
  const { trace } = require('bullmq/dist/cjs/utils');
  const { SpanKind, TelemetryAttributes: attribute } = require('bullmq');
  return (job) =>
    trace(
      telemetry,
      SpanKind.CONSUMER,
      queueName,
      'process',
      queueName,
      async (span) => {
        span?.setAttributes({
          [attribute.WorkerId]: 'worker-1',
          [attribute.WorkerName]: undefined,
          [attribute.JobId]: job.id,
          [attribute.JobName]: job.name,
        });
        const result = await processor(job);
        await trace(telemetry, SpanKind.INTERNAL, queueName, 'complete', queueName, async (inner) => {
          inner?.setAttributes({ [attribute.JobName]: job.name, [attribute.JobId]: job.id });
          JSON.stringify(result);
        });
        span?.addEvent('job completed', { [attribute.JobResult]: JSON.stringify(result) });
        span?.setAttributes({ [attribute.JobAttemptsMade]: 1 });
        span?.setAttributes({
          [attribute.JobAttemptFinishedTimestamp]: Date.now(),
          [attribute.JobProcessedTimestamp]: Date.now(),
        });
      },
      job.opts.telemetry?.metadata,
    );
}

/**
 * A variant's jobs in process, one a call: each a new job (the next id) carrying the metadata the variant's
 * producer writes, run through jobRunner with an empty processor. Shared with bullmq-instructions.mjs (a).
 */
export async function jobsInProcess({ producer, worker, wrap }) {
  const metadata = await metadataOf(producer);
  const runOne = jobRunner(
    worker,
    wrap(async () => undefined),
  );
  let n = 0;
  return () =>
    runOne({
      id: String(++n),
      name: 'send',
      data: {},
      attemptsMade: 0,
      queueName,
      opts: { telemetry: { metadata } },
    });
}

/** (a): ns per job of each variant, in-process; returns the medians and the paired differences from `none`. */
async function inProcess(variants) {
  const runs = {};
  const controls = { ...variants, 'none (A/A)': variants.none };
  for (const [name, variant] of Object.entries(controls)) {
    const runNextJob = await jobsInProcess(variant);
    runs[name] = async (count) => {
      const start = process.hrtime.bigint();
      for (let i = 0; i < count; i++) await runNextJob();
      return Number(process.hrtime.bigint() - start) / count;
    };
  }
  const samples = Object.fromEntries(Object.keys(runs).map((name) => [name, []]));
  for (const run of Object.values(runs)) await run(inProcessJobs / 4); // warm every variant up first
  for (let round = 0; round < inProcessRounds; round++) {
    for (const [name, run] of Object.entries(runs)) samples[name].push(await run(inProcessJobs));
  }
  const differences = (name) => samples[name].map((ns, round) => ns - samples.none[round]);
  console.log(
    `\nBullMQ in-process, Node ${process.version}: ns per job through BullMQ's trace() as its Worker drives it, ` +
      `${inProcessJobs} jobs a round, median of ${inProcessRounds} alternating rounds; paired difference from none ` +
      `(interquartile range)`,
  );
  for (const name of Object.keys(runs)) {
    const d = differences(name);
    console.log(
      `  ${name.padEnd(24)} ${median(samples[name]).toFixed(0).padStart(6)} ns/job  ` +
        `${name === 'none' ? '' : `${median(d) >= 0 ? '+' : ''}${median(d).toFixed(0)} (${quantile(d, 0.25).toFixed(0)} to ${quantile(d, 0.75).toFixed(0)})`}`,
    );
  }
  return Object.fromEntries(Object.keys(runs).map((name) => [name, median(differences(name))]));
}

export async function runBullmqJobs() {
  const { variants, shutdown } = setUp();
  const perJob = await inProcess(variants);
  const carrierBytes = carrierSize();
  console.log(`  carrier: ${carrierBytes} bytes a job (UUIDv7 request and correlation ids, a traceparent)`);
  let withinBudget = carrierBytes <= 256;
  if (process.env.BULLMQ_IN_PROCESS_ONLY === '1') {
    await shutdown();
    return withinBudget;
  }
  if (await reachable(6379)) {
    const loadVariants = Object.fromEntries(Object.entries(variants).filter(([, variant]) => !variant.inProcessOnly));
    withinBudget = (await onRedis(loadVariants, perJob)) && withinBudget;
  } else {
    console.log('\nbullmq-jobs (b): skipped, Redis is not reachable on 127.0.0.1:6379');
  }
  await shutdown();
  return withinBudget;
}

/** The carrier a job made inside a traced request carries, in bytes. */
function carrierSize() {
  const { requestContext, contextCarrier } = require('@ambient/core');
  return requestContext.run(
    {
      requestId: randomUUID(),
      correlationId: randomUUID(),
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
      traceFlags: '01',
    },
    () => Buffer.byteLength(JSON.stringify(contextCarrier())),
  );
}

/** (b): jobs/s and CPU per job through a real Worker on the real Redis. */
async function onRedis(variants, perJob) {
  const { Queue, Worker } = require('bullmq');
  const { requestContext } = require('@ambient/core');
  const connection = { host: '127.0.0.1', port: 6379, maxRetriesPerRequest: null };

  async function round({ producer, worker: telemetry, wrap }) {
    const name = `ambient-bench-${randomUUID()}`;
    const queue = new Queue(name, { connection, telemetry: producer });
    const jobs = Array.from({ length: jobsPerRound }, (_, n) => ({ name: 'send', data: { n } }));
    await requestContext.run({ requestId: randomUUID() }, () => queue.addBulk(jobs));
    let left = jobsPerRound;
    let finished;
    const done = new Promise((resolve) => (finished = resolve));
    const start = process.hrtime.bigint();
    const cpu = process.cpuUsage();
    const worker = new Worker(
      name,
      wrap(async () => undefined),
      { connection, telemetry, concurrency: 10 },
    );
    worker.on('completed', () => --left === 0 && finished());
    await done;
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    const used = process.cpuUsage(cpu);
    await worker.close();
    await queue.obliterate({ force: true });
    await queue.close();
    return { jobsPerSecond: jobsPerRound / seconds, cpuMicrosPerJob: (used.user + used.system) / jobsPerRound };
  }

  const results = Object.fromEntries(Object.keys(variants).map((name) => [name, { rate: [], cpu: [] }]));
  await round(variants.none); // warm-up: connections, scripts loaded into Redis, JIT
  for (const variant of Object.values(variants)) await round(variant);
  for (let r = 0; r < rounds; r++) {
    for (const [name, variant] of Object.entries(variants)) {
      const { jobsPerSecond, cpuMicrosPerJob } = await round(variant);
      results[name].rate.push(jobsPerSecond);
      results[name].cpu.push(cpuMicrosPerJob);
    }
  }
  const rate = (name) => median(results[name].rate);
  const cpu = (name) => median(results[name].cpu);
  const ratio = (name, reference) => (reference in results ? `${(rate(name) / rate(reference)).toFixed(2)}x` : 'n/a');
  console.log(
    `\nBullMQ jobs/s on Redis, Node ${process.version}: ${jobsPerRound} jobs a round, worker concurrency 10, median of ` +
      `${rounds} alternating rounds (min-max); CPU µs per job (median)`,
  );
  for (const name of Object.keys(variants)) {
    const values = results[name].rate;
    const spread = `${quantile(values, 0).toFixed(0)}-${quantile(values, 1).toFixed(0)}`;
    console.log(
      `  ${name.padEnd(24)} ${rate(name).toFixed(0).padStart(6)} jobs/s (${spread.padStart(11)})  ` +
        `${ratio(name, 'none')} none, ${ratio(name, 'hand-written ALS')} hand-written, ` +
        `${ratio(name, 'bullmq-otel')} bullmq-otel; CPU ${cpu(name).toFixed(1)} µs/job ` +
        `(+${(cpu(name) - cpu('none')).toFixed(1)} over none)`,
    );
  }
  const judged = ['ambient ids only', 'ambient + OpenTelemetry', 'bullmq-otel'];
  if (!judged.every((name) => name in results && name in perJob)) {
    console.log(`  budgets: not judged, they need ${judged.join(', ')}`);
    return true;
  }
  const idsRatio = rate('ambient ids only') / rate('none');
  const otelRatio = rate('ambient + OpenTelemetry') / rate('bullmq-otel');
  // The verdicts that repeat: what (a) measured per job, as a share of the CPU a worker spends on a job here. A
  // CPU-bound worker keeps 1 / (1 + share) of its jobs/s, so 0.97x is a share of at most 3.1%.
  const share = (name) => perJob[name] / (cpu('none') * 1000);
  const percent = (name) => `+${(share(name) * 100).toFixed(1)}%`;
  const otelExtra = perJob['ambient + OpenTelemetry'] - perJob['bullmq-otel'];
  verdict(
    `  BullMQ budgets, load (spread above): ids only ${idsRatio.toFixed(2)}x none (needs >= 0.97), with OpenTelemetry ` +
      `${otelRatio.toFixed(2)}x bullmq-otel (needs >= 1.00)`,
  );
  verdict(
    `  BullMQ budgets, in-process per job against the worker's ${cpu('none').toFixed(0)} µs of CPU a job: ids only ` +
      `${percent('ambient ids only')} (needs <= 3.1%), runInJobContext ${percent('ambient runInJobContext')}, ` +
      `hand-written ALS ${percent('hand-written ALS')}; with OpenTelemetry ${otelExtra >= 0 ? '+' : ''}` +
      `${otelExtra.toFixed(0)} ns a job against bullmq-otel (needs <= 0)`,
  );
  return share('ambient ids only') <= 0.031 && otelExtra <= 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runBullmqJobs();

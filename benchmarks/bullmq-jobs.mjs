// Jobs per second through a real BullMQ Worker on the real Redis at 127.0.0.1:6379. Budgets (issue #15):
// bullmqTelemetry() ids only at least 0.97x the jobs/s of no telemetry; with OpenTelemetry at least the jobs/s of
// bullmq-otel; the carrier at most 256 bytes a job.
//
// Variants, each a (producer, worker) pair:
//   none                     jobs added with bullmqTelemetry() (so every variant's jobs are the same bytes),
//                            a Worker with no telemetry: nothing reads the metadata.
//   hand-written ALS         the same jobs; the processor wrapped in AsyncLocalStorage#run with a fresh id and
//                            the producer's id parsed from the metadata: the floor for any ALS-based library.
//   bullmq-otel              bullmq-otel on both sides.
//   ambient ids only         bullmqTelemetry({ opentelemetry: false }) on both sides.
//   ambient runInJobContext  no telemetry on the Worker; the processor wrapped in runInJobContext(job, fn).
//   ambient + OpenTelemetry  bullmqTelemetry() on both sides.
//
// Method. One process; the variants alternate round by round, each round a fresh queue: 1000 jobs added with
// addBulk inside a request scope (so every job carries a carrier), then one Worker (concurrency 10) runs them
// all; the time and the process's CPU time from the worker's start to its last `completed` are the round's.
// CPU time per job repeats better than jobs/s on a shared machine (the worker waits on Redis, which shares the
// two cores). The OpenTelemetry SDK (BasicTracerProvider, AmbientContextManager, a no-op exporter) is
// registered for the whole run, with the W3C propagator that bullmq-otel's metadata needs, so every variant
// pays for the context manager alike. Medians of the rounds; the spread (min-max) is printed too.
//
//   node benchmarks/bullmq-jobs.mjs          (needs Redis; exits 0 with a message without it)
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { reachable } from '../scripts/services.mjs';
import { median, quantile } from './harness.mjs';

const require = createRequire(fileURLToPath(new URL('../packages/bullmq/package.json', import.meta.url)));
const jobsPerRound = 1000;
const rounds = Number(process.env.BULLMQ_ROUNDS ?? 15);

export async function runBullmqJobs() {
  if (!(await reachable(6379))) {
    console.log('\nbullmq-jobs: skipped, Redis is not reachable on 127.0.0.1:6379');
    return true;
  }
  const { AsyncLocalStorage } = await import('node:async_hooks');
  const { Queue, Worker } = require('bullmq');
  const { BullMQOtel } = require('bullmq-otel');
  const api = require('@opentelemetry/api');
  const { BasicTracerProvider, SimpleSpanProcessor } = require('@opentelemetry/sdk-trace-base');
  const { W3CTraceContextPropagator } = require('@opentelemetry/core');
  const { AmbientContextManager } = require('@ambient/opentelemetry-context');
  const { bullmqTelemetry, runInJobContext } = require('@ambient/bullmq-context');
  const { requestContext, contextCarrier } = require('@ambient/core');
  const noExport = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => undefined };
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(noExport)] });
  api.context.setGlobalContextManager(new AmbientContextManager().enable());
  api.trace.setGlobalTracerProvider(provider);
  // As an SDK setup registers it (NodeSDK does): bullmq-otel writes and reads its traceparent through it.
  api.propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const connection = { host: '127.0.0.1', port: 6379, maxRetriesPerRequest: null };

  const idsOnly = bullmqTelemetry({ opentelemetry: false });
  const withOtel = bullmqTelemetry();
  const bullmqOtel = new BullMQOtel('bench');
  const als = new AsyncLocalStorage();
  const handWritten = (processor) => (job) => {
    let causationId;
    try {
      causationId = JSON.parse(job.opts.telemetry?.metadata ?? '{}')['x-request-id'];
    } catch {
      causationId = undefined;
    }
    return als.run({ requestId: randomUUID(), causationId }, processor, job);
  };
  const same = (processor) => processor;
  const variants = {
    none: { producer: idsOnly, worker: undefined, wrap: same },
    'hand-written ALS': { producer: idsOnly, worker: undefined, wrap: handWritten },
    'bullmq-otel': { producer: bullmqOtel, worker: bullmqOtel, wrap: same },
    'ambient ids only': { producer: idsOnly, worker: idsOnly, wrap: same },
    'ambient runInJobContext': {
      producer: idsOnly,
      worker: undefined,
      wrap: (processor) => (job) => runInJobContext(job, () => processor(job)),
    },
    'ambient + OpenTelemetry': { producer: withOtel, worker: withOtel, wrap: same },
  };

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
  const carrierBytes = requestContext.run(
    {
      requestId: randomUUID(),
      correlationId: randomUUID(),
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
      traceFlags: '01',
    },
    () => Buffer.byteLength(JSON.stringify(contextCarrier())),
  );
  await provider.shutdown();

  const rate = (name) => median(results[name].rate);
  const cpu = (name) => median(results[name].cpu);
  console.log(
    `\nBullMQ jobs/s, Node ${process.version}: ${jobsPerRound} jobs a round, worker concurrency 10, median of ` +
      `${rounds} alternating rounds (min-max); CPU µs per job (median)`,
  );
  for (const name of Object.keys(variants)) {
    const values = results[name].rate;
    const spread = `${quantile(values, 0).toFixed(0)}-${quantile(values, 1).toFixed(0)}`;
    console.log(
      `  ${name.padEnd(24)} ${rate(name).toFixed(0).padStart(6)} jobs/s (${spread.padStart(11)})  ` +
        `${(rate(name) / rate('none')).toFixed(2)}x none, ${(rate(name) / rate('hand-written ALS')).toFixed(2)}x ` +
        `hand-written, ${(rate(name) / rate('bullmq-otel')).toFixed(2)}x bullmq-otel; ` +
        `CPU ${cpu(name).toFixed(1)} µs/job (+${(cpu(name) - cpu('none')).toFixed(1)} over none)`,
    );
  }
  const idsRatio = rate('ambient ids only') / rate('none');
  const otelRatio = rate('ambient + OpenTelemetry') / rate('bullmq-otel');
  console.log(`  carrier: ${carrierBytes} bytes a job (UUIDv7 request and correlation ids, a traceparent)`);
  console.log(
    `  budgets: ids only ${idsRatio.toFixed(2)}x none (needs >= 0.97), with OpenTelemetry ${otelRatio.toFixed(2)}x ` +
      `bullmq-otel (needs >= 1.00), carrier ${carrierBytes} bytes (needs <= 256)`,
  );
  return idsRatio >= 0.97 && otelRatio >= 1 && carrierBytes <= 256;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runBullmqJobs();

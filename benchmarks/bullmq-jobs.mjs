// Jobs per second through a real BullMQ Worker on the real Redis at 127.0.0.1:6379: no telemetry, bullmq-otel,
// and bullmqTelemetry() ids only and with OpenTelemetry. Budgets (issue #15): ids only at least 0.97x the jobs/s
// of no telemetry; with OpenTelemetry at least the jobs/s of bullmq-otel; the carrier at most 256 bytes a job.
//
// Method. One process; the variants alternate round by round, each round a fresh queue: 1000 jobs added with
// addBulk inside a request scope (so every job carries a carrier), then one Worker (concurrency 10) runs them
// all; the time from the worker's start to its last `completed` is the round's. The OpenTelemetry SDK
// (BasicTracerProvider, AmbientContextManager, a no-op exporter) is registered for the whole run, so the
// variants without spans pay for the context manager alike. Median of the rounds; the spread is printed too.
//
//   node benchmarks/bullmq-jobs.mjs          (needs Redis; exits 0 with a message without it)
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { reachable } from '../scripts/services.mjs';
import { median, quantile } from './harness.mjs';

const require = createRequire(fileURLToPath(new URL('../packages/bullmq/package.json', import.meta.url)));
const jobsPerRound = 1000;
const rounds = 7;

export async function runBullmqJobs() {
  if (!(await reachable(6379))) {
    console.log('\nbullmq-jobs: skipped, Redis is not reachable on 127.0.0.1:6379');
    return true;
  }
  const { Queue, Worker } = require('bullmq');
  const { BullMQOtel } = require('bullmq-otel');
  const api = require('@opentelemetry/api');
  const { BasicTracerProvider, SimpleSpanProcessor } = require('@opentelemetry/sdk-trace-base');
  const { AmbientContextManager } = require('@ambient/opentelemetry-context');
  const { bullmqTelemetry } = require('@ambient/bullmq-context');
  const { requestContext, contextCarrier } = require('@ambient/core');
  const noExport = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => undefined };
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(noExport)] });
  api.context.setGlobalContextManager(new AmbientContextManager().enable());
  api.trace.setGlobalTracerProvider(provider);
  const connection = { host: '127.0.0.1', port: 6379, maxRetriesPerRequest: null };
  const variants = {
    none: undefined,
    'bullmq-otel': new BullMQOtel('bench'),
    'ambient ids only': bullmqTelemetry({ opentelemetry: false }),
    'ambient + OpenTelemetry': bullmqTelemetry(),
  };

  async function round(telemetry) {
    const name = `ambient-bench-${randomUUID()}`;
    const queue = new Queue(name, { connection, telemetry });
    const jobs = Array.from({ length: jobsPerRound }, (_, n) => ({ name: 'send', data: { n } }));
    await requestContext.run({ requestId: randomUUID() }, () => queue.addBulk(jobs));
    let left = jobsPerRound;
    let finished;
    const done = new Promise((resolve) => (finished = resolve));
    const start = process.hrtime.bigint();
    const worker = new Worker(name, async () => undefined, { connection, telemetry, concurrency: 10 });
    worker.on('completed', () => --left === 0 && finished());
    await done;
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    await worker.close();
    await queue.obliterate({ force: true });
    await queue.close();
    return jobsPerRound / seconds;
  }

  const results = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
  await round(undefined); // warm-up: connections, scripts loaded into Redis, JIT
  for (let r = 0; r < rounds; r++) {
    for (const [name, telemetry] of Object.entries(variants)) results[name].push(await round(telemetry));
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

  const none = median(results.none);
  const otel = median(results['bullmq-otel']);
  console.log(
    `\nBullMQ jobs/s, Node ${process.version}: ${jobsPerRound} jobs a round, worker concurrency 10, median of ${rounds} ` +
      'alternating rounds (min-max)',
  );
  for (const [name, values] of Object.entries(results)) {
    const jobsPerSecond = median(values);
    const spread = `${quantile(values, 0).toFixed(0)}-${quantile(values, 1).toFixed(0)}`;
    console.log(
      `  ${name.padEnd(24)} ${jobsPerSecond.toFixed(0).padStart(6)} jobs/s (${spread})  ` +
        `${(jobsPerSecond / none).toFixed(2)}x none, ${(jobsPerSecond / otel).toFixed(2)}x bullmq-otel`,
    );
  }
  const idsRatio = median(results['ambient ids only']) / none;
  const otelRatio = median(results['ambient + OpenTelemetry']) / otel;
  console.log(`  carrier: ${carrierBytes} bytes a job (UUIDv7 request and correlation ids, a traceparent)`);
  console.log(
    `  budgets: ids only ${idsRatio.toFixed(2)}x none (needs >= 0.97), with OpenTelemetry ${otelRatio.toFixed(2)}x ` +
      `bullmq-otel (needs >= 1.00), carrier ${carrierBytes} bytes (needs <= 256)`,
  );
  return idsRatio >= 0.97 && otelRatio >= 1 && carrierBytes <= 256;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runBullmqJobs();

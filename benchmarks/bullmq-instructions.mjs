// What Ambient costs a real BullMQ worker per job, counted in machine instructions (valgrind's callgrind) rather
// than in time. Budgets (issue #15): bullmqTelemetry() ids only at least 0.97x the jobs/s of no telemetry; with
// OpenTelemetry at least the jobs/s of bullmq-otel. bullmq-jobs.mjs times the same work, but on this VM a
// worker's jobs/s move by up to 2x between rounds and its in-process nanoseconds by 20% between runs; instruction
// counts do not depend on what else the machine is doing (part (b) still spreads by a few percent: Redis's
// replies are not batched the same way each run).
//
// Method. The variants are bullmq-variants.mjs's (setUp()), the OpenTelemetry SDK registered in every process alike.
// Each variant runs in processes of its own under callgrind at two sizes after the same warm-up; the difference
// of the two counts over the difference of the sizes is what one job costs, without start-up. Three pairs of
// processes a variant.
//   (a) In process, no Redis: BullMQ's own trace() driven as its Worker drives it (bullmq-jobs.mjs (a)), with V8's
//       --predictable (below), so that a pair repeats to within tens of instructions.
//   (b) A real Worker (concurrency 10) on the real Redis at 127.0.0.1:6379: this process adds the jobs to a fresh
//       queue inside a request scope, with the variant's producer telemetry; the worker process exits once the
//       last one has completed. What one job costs the worker process: BullMQ, ioredis, the variant's telemetry
//       and the processor. Its locks and stalled-job checks are set to intervals no run reaches, so that a timer
//       firing in one process and not in its pair does not count as a job's work.
//
// The verdicts use (b). A CPU-bound worker keeps 1 / (1 + share) of its jobs/s, where share is what a variant adds
// over no telemetry as a share of a job's CPU with none: 0.97x is a share of at most 3.1%. Instructions are not
// CPU time: callgrind counts no kernel work (a worker's socket reads and writes), which Ambient does not add to,
// and Ambient's code retires more instructions a nanosecond than a worker's cache-missing I/O paths. So the share
// of instructions overstates the share of CPU: it repeats where jobs/s do not, but is not the budget's definition,
// and bullmq-jobs.mjs's figures stay beside it. For the OpenTelemetry budget both sides are the same kind of
// JavaScript, and the ratio of their instructions stands for the ratio of their CPU.
//
//   node benchmarks/bullmq-instructions.mjs        (skips without valgrind or Redis)
//   To see where one variant's instructions go (the queue is left in Redis):
//     queue=$(node benchmarks/bullmq-instructions.mjs fill 'ambient ids only' 2300)
//     valgrind --tool=callgrind node benchmarks/bullmq-instructions.mjs work 'ambient ids only' $queue 2300
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { reachable } from '../scripts/services.mjs';
import { jobsInProcess } from './bullmq-jobs.mjs';
import { setUp } from './bullmq-variants.mjs';
import { hasValgrind, instructionsPerUnit, median, range, verdict } from './harness.mjs';

const require = createRequire(fileURLToPath(new URL('../packages/bullmq/package.json', import.meta.url)));
const file = fileURLToPath(import.meta.url);
const warmUpJobs = 300;
const counts = [500, 2_000];
const inProcessWarmUp = 2_000;
const inProcessCounts = [2_000, 8_000];
const repeats = 3;
const concurrency = 10;
const allVariants = [
  'none',
  'no-op Telemetry',
  'hand-written ALS',
  'ambient runInJobContext',
  'ambient ids only',
  'bullmq-otel',
  'ambient + OpenTelemetry',
];
// BULLMQ_VARIANTS=name,name: only those (with `none`, every share's reference), as in bullmq-jobs.mjs.
const chosen = process.env.BULLMQ_VARIANTS?.split(',');
const variantNames = allVariants.filter((name) => chosen === undefined || name === 'none' || chosen.includes(name));
const connection = { host: '127.0.0.1', port: 6379, maxRetriesPerRequest: null };
/**
 * Part (a) runs with V8's --predictable: its compilers and collector on the main thread, at points that do not
 * depend on timing. The same process then counts the same instructions to within tens (a carrier read: the same
 * count twice), where without it the JIT moved an in-process pair by up to 30%. It is not how V8 runs in
 * production: on the real worker it raised every variant's count (none by 2%, the OpenTelemetry variants by 16
 * and 22%), so part (b), whose pairs spread by 0.5 to 3.3% without it, runs V8 as deployed.
 */
const predictable = ['--predictable'];
/** Longer than any run under valgrind: no lock renewal or stalled-job check fires while the jobs run. */
const noTimersWithinARun = 3_600_000;

/** The variants of this process, which only adds jobs: set up once. */
let producerSide;

/** Adds `count` jobs to a fresh queue with `variant`'s producer, inside a request scope; returns the queue's name. */
async function fillQueue(variant, count) {
  const { Queue } = require('bullmq');
  const { requestContext } = require('@ambient/core');
  const { variants } = (producerSide ??= setUp());
  const name = `ambient-bench-instructions-${randomUUID()}`;
  const queue = new Queue(name, { connection, telemetry: variants[variant].producer });
  const jobs = Array.from({ length: count }, (_, n) => ({ name: 'send', data: { n } }));
  await requestContext.run({ requestId: randomUUID() }, () => queue.addBulk(jobs));
  await queue.close();
  return name;
}

/** The child, under callgrind: a Worker of `variant` runs `count` jobs of `queueName`, then the process ends. */
async function work(variant, queueName, count) {
  const { Worker } = require('bullmq');
  const { variants, shutdown } = setUp();
  const { worker: telemetry, wrap } = variants[variant];
  let left = count;
  let finished;
  const done = new Promise((resolve) => (finished = resolve));
  const worker = new Worker(
    queueName,
    wrap(async () => undefined),
    {
      connection,
      telemetry,
      concurrency,
      lockDuration: noTimersWithinARun,
      stalledInterval: noTimersWithinARun,
    },
  );
  worker.on('completed', () => --left === 0 && finished());
  worker.on('failed', (job, error) => {
    console.error(`job ${job?.id} failed: ${error.message}`);
    process.exit(1);
  });
  await done;
  await worker.close();
  await shutdown();
  // Ends at once, whatever ioredis or the SDK still holds open: what the process counts after its last job is the
  // same at both sizes only if nothing else runs.
  process.exit(0);
}

/**
 * The child of part (a), under callgrind: `count` jobs (after as many unmeasured) through BullMQ's own trace() as
 * its Worker drives it (bullmq-jobs.mjs (a)), one after another, no Redis: what a variant adds to a job in
 * BullMQ's and its own code alone, the same every run.
 */
async function inProcess(variant, count) {
  const { variants, shutdown } = setUp();
  const runNextJob = await jobsInProcess(variants[variant]);
  for (let i = 0; i < inProcessWarmUp + count; i++) await runNextJob();
  await shutdown();
}

async function dropQueue(queueName) {
  const { Queue } = require('bullmq');
  const queue = new Queue(queueName, { connection });
  await queue.obliterate({ force: true });
  await queue.close();
}

/** One line a variant: instructions per job, their range, and what the variant adds over `none`. */
function printPerJob(title, perJob) {
  console.log(title);
  const none = median(perJob.none);
  for (const [name, values] of Object.entries(perJob)) {
    const added = median(values) - none;
    console.log(
      `  ${name.padEnd(24)} ${median(values).toFixed(0).padStart(8)} (${range(values)})` +
        (name === 'none'
          ? ''
          : `  ${added >= 0 ? '+' : ''}${added.toFixed(0)} (${((added / none) * 100).toFixed(1)}%)`),
    );
  }
}

export async function runBullmqInstructions() {
  if (!hasValgrind()) {
    console.log('\nbullmq-instructions: skipped, valgrind is not installed');
    return true;
  }
  const inProcessPerJob = await instructionsPerUnit(variantNames, {
    counts: inProcessCounts,
    repeats,
    argsOf: (variant, count) => [...predictable, file, 'in-process', variant, String(count)],
  });
  printPerJob(
    `\n(a) BullMQ's trace() in process, in instructions (callgrind), Node ${process.version}: per job as its Worker ` +
      `drives it, no Redis, ${inProcessCounts[1] - inProcessCounts[0]} jobs between the two sizes; median (range) ` +
      `of ${repeats} pairs of processes, and what it adds over none`,
    inProcessPerJob,
  );
  if (process.env.BULLMQ_IN_PROCESS_ONLY === '1') return true;
  if (!(await reachable(6379))) {
    console.log('\nbullmq-instructions: skipped, Redis is not reachable on 127.0.0.1:6379');
    return true;
  }
  const queues = [];
  let perJob;
  try {
    perJob = await instructionsPerUnit(variantNames, {
      counts,
      repeats,
      argsOf: async (variant, count) => {
        const queueName = await fillQueue(variant, warmUpJobs + count);
        queues.push(queueName);
        return [file, 'work', variant, queueName, String(warmUpJobs + count)];
      },
    });
  } finally {
    // Every queue this run filled, also when a process failed: none is left in Redis.
    for (const queueName of queues) await dropQueue(queueName);
  }
  printPerJob(
    `\n(b) A BullMQ worker in instructions (callgrind), Node ${process.version}: per job on the real Redis, ` +
      `concurrency ${concurrency}, ${counts[1] - counts[0]} jobs between the two sizes; median (range) of ` +
      `${repeats} pairs of processes, and what it adds over none as a share of none's`,
    perJob,
  );
  const none = median(perJob.none);
  const share = (name) => (median(perJob[name]) - none) / none;
  await producerSide?.shutdown();
  const judged = ['no-op Telemetry', 'ambient ids only', 'ambient + OpenTelemetry', 'bullmq-otel'];
  if (!judged.every((name) => variantNames.includes(name))) {
    console.log(`  budgets: not judged, they need ${judged.join(', ')}`);
    return true;
  }
  const idsOnly = share('ambient ids only');
  const otel = median(perJob['ambient + OpenTelemetry']);
  const peer = median(perJob['bullmq-otel']);
  // Resolved when no pair of one lies among the other's: the JIT moves a pair by a few thousand instructions.
  const apart = (a, b) => Math.max(...a) < Math.min(...b) || Math.min(...a) > Math.max(...b);
  const idsOk = idsOnly <= 0.031;
  const otelOk = otel <= peer;
  // An upper bound on the share of CPU (see the header): met when it is within 3.1%, not decided when it is not.
  verdict(
    `  budget: BullMQ ids only, +${(idsOnly * 100).toFixed(1)}% of a job's instructions with no telemetry, of ` +
      `which BullMQ's own trace() with any telemetry (a no-op one) +${(share('no-op Telemetry') * 100).toFixed(1)}%: ` +
      (idsOk
        ? 'met (needs <= 3.1%, 0.97x jobs/s)'
        : 'not decided here: the share of instructions bounds the share of CPU from above (needs <= 3.1%)'),
  );
  verdict(
    `  budget: BullMQ with OpenTelemetry, ${(otel / peer).toFixed(3)}x bullmq-otel's instructions a job: ` +
      `${otelOk ? 'met' : 'OVER BUDGET'} (needs <= 1.000x)` +
      (apart(perJob['ambient + OpenTelemetry'], perJob['bullmq-otel'])
        ? ''
        : '; not resolved here, the pairs of the two overlap'),
  );
  return otelOk;
}

if (process.argv[1] === file) {
  if (process.argv[2] === 'work') await work(process.argv[3], process.argv[4], Number(process.argv[5]));
  else if (process.argv[2] === 'in-process') await inProcess(process.argv[3], Number(process.argv[4]));
  else if (process.argv[2] === 'fill') {
    console.log(await fillQueue(process.argv[3], Number(process.argv[4])));
    await producerSide.shutdown();
  } else if (!(await runBullmqInstructions())) process.exitCode = 1;
}

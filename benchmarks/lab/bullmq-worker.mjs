// The BullMQ variants (bullmq-variants.mjs) on a real Worker that has a core of its own: jobs/s and CPU a job,
// where bullmq.bench.mjs counts the same variants in process.
//
// On a machine whose two cores the producer, the worker and Redis share, a round's jobs/s moved by up to 2x and
// the worker's CPU for an empty job was 122 µs in one session and 46 µs in another. Here each part has its place:
//   - a Redis of this benchmark's own (redis-server on a free port, nothing saved), pinned to core 0, with the
//     producer (the calling process), which is idle while a worker drains its queue;
//   - each variant's worker in a process of its own, pinned to core 1 with every thread it has, started once and
//     kept for the whole run, as a deployed worker is (so its JIT state is its own, not shared with the others).
// A round: for each variant, in an order shuffled afresh each round (so that no variant always follows the same
// one), the producer fills a fresh queue with the round's jobs (addBulk inside a request scope, with that
// variant's producer telemetry), then the variant's worker drains it (concurrency 10, an empty processor:
// Ambient's share of a job is then the largest it can be). Only the worker runs while it drains; its time and CPU
// from `run()` to the last job's end are the round's. A job that fails fails the run.
// Two controls, each a worker with no telemetry: `none (A/A)`, whose ratios to `none` show what the method
// resolves, and `none, ALS in use`, whose process has entered an AsyncLocalStorage once. On Node 22, where
// AsyncLocalStorage runs on async_hooks, that alone installs hooks that run for every promise and async resource
// the process creates, while `none` never enables it.
//
//   node benchmarks/lab/bullmq-worker.mjs          (BULLMQ_ROUNDS=20 BULLMQ_JOBS=2000: the defaults)
import { AsyncLocalStorage } from 'node:async_hooks';
import { fork, spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { freePort, reachable } from '../../scripts/services.mjs';
import { setUp } from '../bullmq-variants.mjs';
import { fixed, iqr, median, printTable } from '../harness.mjs';

const require = createRequire(import.meta.url);
const rounds = Number(process.env.BULLMQ_ROUNDS ?? 20);
const jobsPerRound = Number(process.env.BULLMQ_JOBS ?? 2000);
const controls = { 'none (A/A)': 'none', 'none, ALS in use': 'none' };
/** Far longer than any drain takes (a second or two): a worker silent this long is stuck, and fails the run. */
const answerTimeoutMs = 5 * 60_000;

/** Pins process `pid` and all its threads to `cores` (taskset's list: `1`, `0-1`). */
function pin(pid, cores) {
  const result = spawnSync('taskset', ['--all-tasks', '--cpu-list', '--pid', String(cores), String(pid)]);
  if (result.status !== 0) throw new Error(`taskset could not pin ${pid} to ${cores}: ${result.stderr}`);
}

/** The cores process `pid` may run on, as taskset lists them. */
function coresOf(pid) {
  const result = spawnSync('taskset', ['--cpu-list', '--pid', String(pid)], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`taskset could not read the cores of ${pid}: ${result.stderr}`);
  return result.stdout.slice(result.stdout.lastIndexOf(':') + 1).trim();
}

/**
 * The processes a run starts (its redis-server and its workers), stopped together however the run ends: on
 * return or throw (stop()), on Ctrl-C or a kill of this process alone, and on an exit that skips both (a crash).
 * A server or worker left behind would go on holding a core, and a worker on a random port retries forever.
 */
function processGroup() {
  const children = new Set();
  const killAll = () => {
    for (const child of children) child.kill();
  };
  const interrupted = (signal) => {
    killAll();
    process.kill(process.pid, signal); // the handler is gone (once): the signal now ends this process
  };
  process.once('SIGINT', interrupted).once('SIGTERM', interrupted).once('exit', killAll);
  return {
    add(child) {
      children.add(child);
      return child;
    },
    stop() {
      process.off('SIGINT', interrupted).off('SIGTERM', interrupted).off('exit', killAll);
      killAll();
    },
  };
}

/**
 * A redis-server of this run's own on core 0, nothing saved: its port, and `gone`, a promise that rejects when it
 * exits (set up as it is spawned, so that no exit goes unseen). Rejects if it exits before it answers: one that
 * could not listen (the port was taken since freePort) exits, and what answers on the port is then not ours.
 */
async function startRedis(group) {
  const port = await freePort();
  const server = ['redis-server', '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  const redis = group.add(spawn('taskset', ['--cpu-list', '0', ...server], { stdio: 'ignore' }));
  let exited = false;
  const gone = new Promise((_, reject) =>
    redis.once('exit', (code, signal) => {
      exited = true;
      reject(new Error(`redis-server exited (${signal ?? code})`));
    }),
  );
  gone.catch(() => undefined); // raced by every wait of the run; nothing may be left unhandled between two races
  for (let tries = 0; tries < 100 && !exited; tries++) {
    if ((await reachable(port)) && !exited) return { port, gone };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`redis-server did not start on port ${port}`);
}

/**
 * Sends `message` to a worker (none: only waits) and resolves to its answer. Rejects if the worker has exited or
 * exits first, if the message cannot be sent, or after answerTimeoutMs: a drain that never ends fails the run
 * instead of holding it.
 */
function ask(child, message) {
  return new Promise((resolve, reject) => {
    if (child.exitCode !== null || child.signalCode !== null || !child.connected) {
      reject(new Error(`worker ${child.pid} has exited`));
      return;
    }
    const settle = (error, answer) => {
      clearTimeout(timer);
      child.off('exit', exited).off('message', answered);
      if (error === undefined) resolve(answer);
      else reject(error);
    };
    const exited = (code, signal) => settle(new Error(`worker ${child.pid} exited (${signal ?? code}) first`));
    const answered = (answer) => settle(undefined, answer);
    const timer = setTimeout(() => settle(new Error(`worker ${child.pid}: no answer in 5 minutes`)), answerTimeoutMs);
    child.once('exit', exited).once('message', answered);
    if (message !== undefined) child.send(message, (error) => error && settle(error));
  });
}

/** The worker side, in a process of its own: drains a queue each time the producer names one, and reports. */
async function workerProcess(variantName, port) {
  const { Worker } = require('bullmq');
  const { variants } = setUp();
  const { worker: telemetry, wrap } = variants[controls[variantName] ?? variantName];
  if (variantName === 'none, ALS in use') new AsyncLocalStorage().enterWith({});
  const connection = { host: '127.0.0.1', port, maxRetriesPerRequest: null };
  // The producer is gone (killed, or crashed): nothing will ask again, and the Redis goes with it.
  process.once('disconnect', () => process.exit(0));
  process.on('message', async ({ queue, jobs }) => {
    try {
      process.send(
        await drain(
          new Worker(
            queue,
            wrap(async () => undefined),
            { connection, telemetry, concurrency: 10, autorun: false },
          ),
          jobs,
        ),
      );
    } catch (error) {
      process.send({ error: String(error?.stack ?? error) });
    }
  });
  process.send('ready');
}

/** Runs `worker` until `jobs` jobs have ended; its wall and CPU seconds, and how many failed. */
async function drain(worker, jobs) {
  await worker.waitUntilReady();
  let left = jobs;
  let failed = 0;
  let finished;
  const done = new Promise((resolve) => (finished = resolve));
  worker.on('completed', () => --left === 0 && finished());
  worker.on('failed', () => {
    failed++;
    if (--left === 0) finished();
  });
  const start = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  void worker.run();
  await done;
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const used = process.cpuUsage(cpu);
  await worker.close();
  return { seconds, cpuSeconds: (used.user + used.system) / 1e6, failed };
}

/** Why this cannot run here (a command it needs is missing), or undefined. */
function canPin() {
  const missing = ['redis-server', 'taskset'].filter((command) => spawnSync('which', [command]).status !== 0);
  return missing.length === 0 ? undefined : `${missing.join(' and ')} not installed`;
}

/** `values` in a random order (Fisher-Yates). */
function shuffled(values) {
  const order = [...values];
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

/**
 * The rounds, on the producer's side: `variants` (setUp()'s, the controls added) drained in turn. Returns the
 * jobs a round and, for each variant, each round's wall and CPU seconds.
 */
async function onOwnCore(variants) {
  const { Queue } = require('bullmq');
  const { requestContext } = require('@ambient/core');
  const names = [...Object.keys(variants), ...Object.keys(controls)];
  const producerOf = (name) => variants[controls[name] ?? name].producer;
  const ownCores = coresOf(process.pid);
  let group;
  let openQueue; // a round's queue, until it is closed: a failed run must not leave its client retrying
  try {
    group = processGroup();
    pin(process.pid, 0);
    const { port, gone } = await startRedis(group);
    // Every wait below also ends, failing the run, if the Redis goes: BullMQ's clients would retry forever.
    const untilRedisGoes = (promise) => Promise.race([promise, gone]);
    const connection = { host: '127.0.0.1', port, maxRetriesPerRequest: null };
    const workers = {};
    for (const name of names) {
      workers[name] = group.add(fork(fileURLToPath(import.meta.url), ['worker', name, String(port)]));
      if ((await untilRedisGoes(ask(workers[name]))) !== 'ready') throw new Error(`the ${name} worker did not start`);
      pin(workers[name].pid, 1);
    }
    const drainOne = async (name) => {
      const queue = new Queue(`ambient-bench-${randomUUID()}`, { connection, telemetry: producerOf(name) });
      openQueue = queue;
      const jobs = Array.from({ length: jobsPerRound }, (_, n) => ({ name: 'send', data: { n } }));
      await untilRedisGoes(requestContext.run({ requestId: randomUUID() }, () => queue.addBulk(jobs)));
      const answer = await untilRedisGoes(ask(workers[name], { queue: queue.name, jobs: jobsPerRound }));
      if (answer.error !== undefined) throw new Error(`the ${name} worker failed: ${answer.error}`);
      if (answer.failed > 0) throw new Error(`the ${name} worker failed ${answer.failed} of ${jobsPerRound} jobs`);
      await untilRedisGoes(queue.obliterate({ force: true }));
      await queue.close();
      openQueue = undefined;
      return answer;
    };
    for (const name of names) await drainOne(name); // warm-up: connections, Redis's scripts, the JIT
    const results = Object.fromEntries(names.map((name) => [name, []]));
    for (let round = 0; round < rounds; round++) {
      for (const name of shuffled(names)) results[name].push(await drainOne(name));
    }
    return { jobsPerRound, results };
  } finally {
    // BullMQ's disconnect() waits for a connection that may never come (the Redis is gone): not awaited, and its
    // failure is no news.
    openQueue?.disconnect().catch(() => undefined);
    group?.stop();
    // The calling process goes on (npm run bench), and what it starts would inherit core 0 alone.
    pin(process.pid, ownCores);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === 'worker')
  await workerProcess(process.argv[3], Number(process.argv[4]));
else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const missing = canPin();
  if (missing !== undefined) throw new Error(`bullmq-worker: ${missing}`);
  const { variants, shutdown } = setUp();
  const { results } = await onOwnCore(variants);
  await shutdown();
  const rate = (name) => results[name].map(({ seconds }) => jobsPerRound / seconds);
  printTable(`BullMQ worker on a core of its own, Node ${process.version}: ${rounds} rounds of ${jobsPerRound} jobs`, [
    ['', 'jobs/s', 'per-round ratio to none (IQR)', 'CPU µs a job'],
    ...Object.keys(results).map((name) => {
      const ratios = rate(name).map((value, round) => value / rate('none')[round]);
      const cpu = results[name].map(({ cpuSeconds }) => (cpuSeconds / jobsPerRound) * 1e6);
      return [
        name,
        fixed(median(rate(name))),
        `${median(ratios).toFixed(3)} (${iqr(ratios, 3)})`,
        median(cpu).toFixed(1),
      ];
    }),
  ]);
}

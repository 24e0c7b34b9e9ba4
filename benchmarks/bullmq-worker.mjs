// bullmq-jobs.mjs (b): the variants' jobs/s and CPU a job on a real Worker that has a core of its own.
//
// On a machine whose two cores the producer, the worker and Redis share, a round's jobs/s moved by up to 2x and
// the worker's CPU a job by a factor of 2.6 between sessions (122 and 46 µs with no telemetry). Here each part has
// its place:
//   - a Redis of this benchmark's own (redis-server on a free port, nothing saved), pinned to core 0, with the
//     producer (the calling process), which is idle while a worker drains its queue;
//   - each variant's worker in a process of its own, pinned to core 1 with every thread it has, started once and
//     kept for the whole run, as a deployed worker is (so its JIT state is its own, not shared with the others).
// A round: for each variant, in an order that rotates round by round, the producer fills a fresh queue with the
// round's jobs (addBulk inside a request scope, with that variant's producer telemetry), then the variant's worker
// drains it (concurrency 10, an empty processor: Ambient's share of a job is then the largest it can be). Only the
// worker runs while it drains; its time and CPU from `run()` to the last `completed` are the round's.
// Two controls, each a worker with no telemetry: `none (A/A)`, whose ratios to `none` show what the method
// resolves, and `none, ALS in use`, whose process has entered an AsyncLocalStorage once: on Node 22, where
// AsyncLocalStorage runs on async_hooks, that alone taxes every promise and socket callback of the process, while
// `none` never enables it.
//
//   BULLMQ_ROUNDS=60 BULLMQ_JOBS=2000 node benchmarks/bullmq-jobs.mjs     (the defaults)
import { AsyncLocalStorage } from 'node:async_hooks';
import { fork, spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { reachable } from '../scripts/services.mjs';
import { setUp } from './bullmq-variants.mjs';

const require = createRequire(fileURLToPath(new URL('../packages/bullmq/package.json', import.meta.url)));
const rounds = Number(process.env.BULLMQ_ROUNDS ?? 60);
const jobsPerRound = Number(process.env.BULLMQ_JOBS ?? 2000);
const controls = { 'none (A/A)': 'none', 'none, ALS in use': 'none' };

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

/** A TCP port on 127.0.0.1 that nothing listens on now. */
async function freePort() {
  const server = net.createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  server.close();
  await once(server, 'close');
  return port;
}

/**
 * A redis-server of this benchmark's own on core 0: nothing saved, gone when the benchmark ends, also when it is
 * stopped with Ctrl-C or a kill (a server left on a random port would otherwise outlive it).
 */
async function startRedis() {
  const port = await freePort();
  const server = ['redis-server', '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  const redis = spawn('taskset', ['--cpu-list', '0', ...server], { stdio: 'ignore' });
  const interrupted = (signal) => {
    redis.kill();
    process.kill(process.pid, signal);
  };
  const stop = () => {
    process.off('SIGINT', interrupted).off('SIGTERM', interrupted);
    redis.kill();
  };
  process.once('SIGINT', interrupted).once('SIGTERM', interrupted);
  for (let tries = 0; tries < 100; tries++) {
    if (await reachable(port)) return { port, stop };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  stop();
  throw new Error(`redis-server did not start on port ${port}`);
}

/** The next message from `child`; rejects if it exits first. */
function nextMessage(child) {
  return new Promise((resolve, reject) => {
    const exited = (code) => reject(new Error(`a worker process exited (${code}) before it answered`));
    child.once('exit', exited);
    child.once('message', (message) => {
      child.off('exit', exited);
      resolve(message);
    });
  });
}

/** The worker side, in a process of its own: drains a queue each time the producer names one, and reports. */
async function workerProcess(variantName, port) {
  const { Worker } = require('bullmq');
  const { variants } = setUp();
  const { worker: telemetry, wrap } = variants[controls[variantName] ?? variantName];
  if (variantName === 'none, ALS in use') new AsyncLocalStorage().enterWith({});
  const connection = { host: '127.0.0.1', port, maxRetriesPerRequest: null };
  process.on('message', async ({ queue, jobs }) => {
    const worker = new Worker(
      queue,
      wrap(async () => undefined),
      { connection, telemetry, concurrency: 10, autorun: false },
    );
    await worker.waitUntilReady();
    let left = jobs;
    let finished;
    const done = new Promise((resolve) => (finished = resolve));
    worker.on('completed', () => --left === 0 && finished());
    const start = process.hrtime.bigint();
    const cpu = process.cpuUsage();
    void worker.run();
    await done;
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    const used = process.cpuUsage(cpu);
    await worker.close();
    process.send({ seconds, cpuSeconds: (used.user + used.system) / 1e6 });
  });
  process.send('ready');
}

/** Why (b) cannot run here (a command it needs is missing), or undefined. */
export function canPin() {
  const missing = ['redis-server', 'taskset'].filter((command) => spawnSync('which', [command]).status !== 0);
  return missing.length === 0 ? undefined : `${missing.join(' and ')} not installed`;
}

/**
 * The rounds, on the producer's side: `variants` (setUp()'s, the controls added) drained in turn. Returns the
 * jobs a round and, for each variant, each round's wall and CPU seconds.
 */
export async function onOwnCore(variants) {
  const { Queue } = require('bullmq');
  const { requestContext } = require('@ambient/core');
  const names = [...Object.keys(variants), ...Object.keys(controls)];
  const producerOf = (name) => variants[controls[name] ?? name].producer;
  const ownCores = coresOf(process.pid);
  pin(process.pid, 0);
  let redis;
  const workers = {};
  try {
    redis = await startRedis();
    const connection = { host: '127.0.0.1', port: redis.port, maxRetriesPerRequest: null };
    for (const name of names) {
      const child = fork(fileURLToPath(import.meta.url), ['worker', name, String(redis.port)]);
      workers[name] = child;
      if ((await nextMessage(child)) !== 'ready') throw new Error(`the ${name} worker did not start`);
      pin(child.pid, 1);
    }
    const drain = async (name) => {
      const queue = new Queue(`ambient-bench-${randomUUID()}`, { connection, telemetry: producerOf(name) });
      const jobs = Array.from({ length: jobsPerRound }, (_, n) => ({ name: 'send', data: { n } }));
      await requestContext.run({ requestId: randomUUID() }, () => queue.addBulk(jobs));
      workers[name].send({ queue: queue.name, jobs: jobsPerRound });
      const result = await nextMessage(workers[name]);
      await queue.obliterate({ force: true });
      await queue.close();
      return result;
    };
    for (const name of names) await drain(name); // warm-up: connections, Redis's scripts, the JIT
    const results = Object.fromEntries(names.map((name) => [name, []]));
    for (let round = 0; round < rounds; round++) {
      const order = names.map((_, i) => names[(i + round) % names.length]);
      for (const name of order) results[name].push(await drain(name));
    }
    return { jobsPerRound, results };
  } finally {
    for (const child of Object.values(workers)) child.kill();
    redis?.stop();
    // The calling process goes on (npm run bench), and what it starts would inherit core 0 alone.
    pin(process.pid, ownCores);
  }
}

if (process.argv[2] === 'worker') await workerProcess(process.argv[3], Number(process.argv[4]));

// `npm run bench` runs this on Node 22, 24 and 26 (scripts/node-matrix.mjs): every part on the running node, then
// every budget's verdict again; exits 1 if a budget is missed or a part fails.
//   BENCH_ONLY=reference|core|opentelemetry|drivers|bullmq|brokers|frameworks|hono|websocket|threads|nestjs|loggers|full-stack   (comma-separated: some parts)
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { budget, verdictsSoFar } from './harness.mjs';

/** The framework budgets' reference must be a correct middleware first: the conformance suite's universal profile. */
function reference() {
  const test = fileURLToPath(new URL('reference.test.mjs', import.meta.url));
  const { status, stdout, stderr } = spawnSync(process.execPath, ['--expose-gc', '--test', test], { encoding: 'utf8' });
  // The tap reporter's `# pass 42` (Node 22) or the spec reporter's `ℹ pass 42`.
  const summary = stdout.split('\n').filter((line) => /^(# |ℹ )(tests|pass|fail) /.test(line));
  if (status !== 0) console.log(stdout, stderr);
  budget(
    `reference: hand-written.mjs passes the universal conformance profile on express, koa and fastify (${summary
      .map((line) => line.slice(2))
      .join(', ')})`,
    status === 0,
  );
}

const parts = {
  reference,
  core: () => import('./core-micro.bench.mjs').then((part) => part.run()),
  opentelemetry: () => import('./opentelemetry.bench.mjs').then((part) => part.run()),
  drivers: () => import('./drivers.bench.mjs').then((part) => part.run()),
  bullmq: () => import('./bullmq.bench.mjs').then((part) => part.run()),
  brokers: () => import('./brokers.bench.mjs').then((part) => part.run()),
  frameworks: () => import('./frameworks.bench.mjs').then((part) => part.run()),
  hono: () => import('./hono.bench.mjs').then((part) => part.run()),
  websocket: () => import('./websocket.bench.mjs').then((part) => part.run()),
  threads: () => import('./threads.bench.mjs').then((part) => part.run()),
  nestjs: () => import('./nestjs.bench.mjs').then((part) => part.run()),
  loggers: () => import('./loggers.bench.mjs').then((part) => part.run()),
  'full-stack': () => import('./full-stack.bench.mjs').then((part) => part.run()),
};
const only = process.env.BENCH_ONLY?.split(',') ?? Object.keys(parts);
const unknown = only.filter((name) => !Object.hasOwn(parts, name));
if (unknown.length > 0) throw new Error(`BENCH_ONLY: no part ${unknown.join(', ')}; parts: ${Object.keys(parts)}`);

const started = Date.now();
const failed = [];
for (const name of only) {
  const start = Date.now();
  console.log(`\n======== ${name} (Node ${process.version})`);
  try {
    await parts[name]();
  } catch (error) {
    console.error(error);
    failed.push(name);
  }
  console.log(`  (${name}: ${((Date.now() - start) / 1000).toFixed(0)} s)`);
}
console.log(`\nBudgets on Node ${process.version}, ${((Date.now() - started) / 1000).toFixed(0)} s in all:`);
for (const { line } of verdictsSoFar()) console.log(`  ${line}`);
if (failed.length > 0) console.error(`\nParts that failed to run: ${failed.join(', ')}`);
if (failed.length > 0 || verdictsSoFar().some(({ ok }) => !ok)) process.exitCode = 1;

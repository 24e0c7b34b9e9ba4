// The full production stack on the seed route (issue #5): Ambient (expressContext + correlationMixin +
// AmbientContextManager) against today's usual stack (cls-rtracer + a pino mixin reading it +
// AsyncLocalStorageContextManager) and against bare express. Each server in its own process, alternating
// 1-second bursts (50 connections) round by round; req/s at full load and CPU per request at a fixed rate,
// as medians (interquartile range) of per-round ratios. Budgets (issue #18): Ambient's stack at least 0.95x the
// req/s of a fourth server that does the same work with no context at all (the ceiling any context library can
// reach), and ahead of the peer stack (at least 1.00x) on every Node line.
import { fileURLToPath } from 'node:url';
import { median } from '../harness.mjs';
import { measureLoad, printLoadTable, ratioBudget, ratios } from '../load.mjs';

const variants = ['bare', 'no-context', 'peers', 'ambient'];
const labels = {
  bare: 'bare express',
  'no-context': 'same line and span, no context',
  peers: 'cls-rtracer + mixin + ALS manager',
  ambient: 'Ambient stack',
};
const rounds = Number(process.env.BENCH_ROUNDS ?? 15);
const burst = { path: '/users/42', connections: 50, duration: 1 };
const serverFile = fileURLToPath(new URL('server.mjs', import.meta.url));
const ceilingBudget = 0.95;
const peerBudget = 1;

export async function runFullStack() {
  const { samples, cpuSamples, fixedRate } = await measureLoad(
    serverFile,
    (variant) => [variant],
    variants,
    rounds,
    burst,
  );
  console.log(
    `\nfull stack (express 5, request id, one pino line, one span), Node ${process.version}: ${rounds} alternating ` +
      `rounds of ${burst.duration}-second bursts; req/s at ${burst.connections} connections, CPU per request at ${fixedRate} req/s`,
  );
  printLoadTable(variants, labels, samples, cpuSamples, 'bare');
  const vsCeiling = ratios(samples, 'ambient', 'rps', 'no-context');
  const vsPeers = ratios(samples, 'ambient', 'rps', 'peers');
  const cpuVsPeers = ratios(cpuSamples, 'ambient', 'cpuPerRequest', 'peers');
  const nearCeiling = ratioBudget('Ambient stack vs the same stack with no context, req/s', vsCeiling, ceilingBudget);
  const aheadOfPeers = ratioBudget('Ambient stack vs peer stack req/s', vsPeers, peerBudget);
  console.log(`  (CPU per request, Ambient stack vs peer stack: ${median(cpuVsPeers).toFixed(2)}x)`);
  return nearCeiling && aheadOfPeers;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!(await runFullStack())) process.exitCode = 1;
}

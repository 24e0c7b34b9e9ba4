// The full production stack on the seed route (issue #5): Ambient (expressContext + correlationMixin +
// AmbientContextManager) against today's usual stack (cls-rtracer + a pino mixin reading it +
// AsyncLocalStorageContextManager) and against bare express. Each server in its own process, alternating
// 1-second bursts (50 connections) round by round; req/s at full load and CPU per request at a fixed rate,
// as medians (interquartile range) of per-round ratios. Budget: Ambient's stack >= 1.3x the peer stack's
// req/s on Node 20, >= 1.1x on Node 24. A fourth server does the same work with no context at all; its ratio
// to the peer stack is the most any context stack could reach.
import { fileURLToPath } from 'node:url';
import { median } from '../harness.mjs';
import { formatRatio, measureLoad, printLoadTable, ratios } from '../load.mjs';

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
const budget = Number(process.versions.node.split('.')[0]) >= 24 ? 1.1 : 1.3;

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
  const vsPeers = ratios(samples, 'ambient', 'rps', 'peers');
  const cpuVsPeers = ratios(cpuSamples, 'ambient', 'cpuPerRequest', 'peers');
  const ok = median(vsPeers) >= budget;
  console.log(
    `budget check: Ambient stack vs peer stack req/s ${formatRatio(vsPeers)}, ` +
      `CPU per request ${median(cpuVsPeers).toFixed(2)}x: ${ok ? `ok (>= ${budget}x)` : `OVER BUDGET (needs >= ${budget}x)`}`,
  );
  // What any context stack could reach at best: the same work with the context taken out.
  const ceiling = ratios(samples, 'no-context', 'rps', 'peers');
  const ceilingCpu = ratios(cpuSamples, 'no-context', 'cpuPerRequest', 'peers');
  console.log(
    `ceiling: the no-context stack vs peer stack req/s ${formatRatio(ceiling)}, CPU per request ${median(ceilingCpu).toFixed(2)}x`,
  );
  return ok;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!(await runFullStack())) process.exitCode = 1;
}

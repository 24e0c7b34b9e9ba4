// The seed blog's route on express, koa and fastify: bare, with Ambient, and with today's peers, each server
// in its own process, loaded by autocannon from this one in alternating 1-second bursts (50 connections).
// Prints req/s at full load and the server's CPU per request at a fixed rate (the same for every variant, so
// that batching is the same), both as ratios to bare: medians of per-round ratios, with their interquartile
// range. Checks the budget of issue #4: Ambient >= 0.95x bare req/s, and never behind a peer.
//
// This shared 2-vCPU VM moves a server's throughput by ±15% from one second to the next, and the same
// server measured twice in a row can differ by 10%; hence many short alternating rounds, and the spread
// printed beside every ratio. A ratio whose interquartile range spans the budget is not a verdict.
import { fileURLToPath } from 'node:url';
import { median } from '../harness.mjs';
import { formatRatio, measureLoad, printLoadTable, ratios } from '../load.mjs';
import { frameworkVariants, labels, selectedFrameworks } from './variants.mjs';

const rounds = Number(process.env.BENCH_ROUNDS ?? 15);
const serverFile = fileURLToPath(new URL('server.mjs', import.meta.url));
const burst = { path: '/users/42', connections: 50, duration: 1 };
const rpsBudget = 0.95;

export async function runFrameworks() {
  let withinBudget = true;
  for (const framework of selectedFrameworks()) {
    const variants = frameworkVariants[framework];
    const { samples, cpuSamples, fixedRate } = await measureLoad(
      serverFile,
      (variant) => [framework, variant],
      variants,
      rounds,
      burst,
    );
    console.log(
      `\n${framework}, GET /users/:id, Node ${process.version}: ${rounds} alternating rounds of ${burst.duration}-second ` +
        `bursts, req/s at ${burst.connections} connections, CPU per request at ${fixedRate} req/s; medians ` +
        `(interquartile range) of per-round ratios to bare`,
    );
    printLoadTable(variants, labels, samples, cpuSamples, 'bare');
    const vsBare = ratios(samples, 'ambient', 'rps', 'bare');
    const checks = [[`Ambient vs bare req/s ${formatRatio(vsBare)}`, median(vsBare) >= rpsBudget, `>= ${rpsBudget}x`]];
    for (const peer of variants.filter((variant) => variant !== 'bare' && variant !== 'ambient')) {
      const vsPeer = ratios(samples, 'ambient', 'rps', peer);
      checks.push([`Ambient vs ${labels[peer]} req/s ${formatRatio(vsPeer)}`, median(vsPeer) >= 1, '>= 1.00x']);
    }
    for (const [text, ok, budget] of checks) {
      console.log(`budget check: ${text}: ${ok ? `ok (${budget})` : `OVER BUDGET (needs ${budget})`}`);
      withinBudget &&= ok;
    }
  }
  return withinBudget;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!(await runFrameworks())) process.exitCode = 1;
}

// The seed blog's route on express, koa and fastify: bare, with Ambient, and with today's peers, each server
// in its own process, loaded by autocannon from this one in alternating 1-second bursts (50 connections).
// Prints req/s at full load and the server's CPU per request at a fixed rate (the same for every variant, so
// that batching is the same), both as ratios to bare: medians of per-round ratios, with their interquartile
// range. Checks the budget of issue #18: Ambient's req/s at least 0.98x the hand-written AsyncLocalStorage
// middleware's (the floor of any library built on it), measured in the same run; bare and the peers are printed
// beside it.
//
// This shared 2-vCPU VM moves a server's throughput by ±15% from one second to the next, and the same
// server measured twice in a row can differ by 10%; hence many short alternating rounds, and the spread
// printed beside every ratio. A ratio whose interquartile range spans the budget is not a verdict.
import { fileURLToPath } from 'node:url';
import { measureLoad, printLoadTable, ratioBudget, ratios } from '../load.mjs';
import { frameworkVariants, labels, selectedFrameworks } from './variants.mjs';

const rounds = Number(process.env.BENCH_ROUNDS ?? 15);
const serverFile = fileURLToPath(new URL('server.mjs', import.meta.url));
const burst = { path: '/users/42', connections: 50, duration: 1 };
const rpsBudget = 0.98;

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
    const vsHandWritten = ratios(samples, 'ambient', 'rps', 'als');
    withinBudget = ratioBudget(`${framework}: Ambient vs hand-written req/s`, vsHandWritten, rpsBudget) && withinBudget;
  }
  return withinBudget;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!(await runFrameworks())) process.exitCode = 1;
}

// `npm run bench`: every benchmark on the running node (scripts/node-matrix.mjs runs this on Node 22, 24 and 26).
import { runAsyncHop } from './core-async-hop.mjs';
import { runBullmqInstructions } from './bullmq-instructions.mjs';
import { runBullmqJobs } from './bullmq-jobs.mjs';
import { runCoreMicro } from './core-micro.mjs';
import { runDiagnostics } from './diagnostics.mjs';
import { runDrivers } from './drivers.mjs';
import { runDriversInstructions } from './drivers-instructions.mjs';
import { runAllocations } from './frameworks/allocations.mjs';
import { runInProcess } from './frameworks/in-process.mjs';
import { runInstructions } from './frameworks/instructions.mjs';
import { runFrameworks } from './frameworks/run.mjs';
import { runFullStackInstructions } from './full-stack/instructions.mjs';
import { runFullStack } from './full-stack/run.mjs';
import { runHttpSeed } from './http-seed/run.mjs';
import { verdictsSoFar } from './harness.mjs';
import { runOpenTelemetryBind } from './opentelemetry-bind.mjs';
import { runOpenTelemetryInstructions } from './opentelemetry-instructions.mjs';

// BENCH_ONLY: core | opentelemetry | bullmq | drivers | drivers-instructions | diagnostics | http | in-process |
// frameworks | framework-instructions | allocations | full-stack | full-stack-instructions
const only = process.env.BENCH_ONLY;
let withinBudget = true;
if (only === undefined || only === 'core') {
  withinBudget = runCoreMicro() && withinBudget;
  runAsyncHop();
}
if (only === undefined || only === 'opentelemetry') {
  runOpenTelemetryBind();
  withinBudget = (await runOpenTelemetryInstructions()) && withinBudget;
}
if (only === undefined || only === 'bullmq') {
  withinBudget = (await runBullmqJobs()) && withinBudget;
  withinBudget = (await runBullmqInstructions()) && withinBudget;
}
if (only === undefined || only === 'drivers') {
  withinBudget = (await runDrivers()) && withinBudget;
  withinBudget = (await runDriversInstructions()) && withinBudget;
}
if (only === 'drivers-instructions') withinBudget = (await runDriversInstructions()) && withinBudget;
if (only === undefined || only === 'diagnostics') withinBudget = (await runDiagnostics()) && withinBudget;
if (only === undefined || only === 'http') withinBudget = (await runHttpSeed()) && withinBudget;
if (only === undefined || only === 'in-process') withinBudget = (await runInProcess()) && withinBudget;
if (only === undefined || only === 'frameworks') withinBudget = (await runFrameworks()) && withinBudget;
if (only === undefined || only === 'framework-instructions') withinBudget = (await runInstructions()) && withinBudget;
if (only === undefined || only === 'allocations') withinBudget = (await runAllocations()) && withinBudget;
if (only === undefined || only === 'full-stack') withinBudget = (await runFullStack()) && withinBudget;
if (only === undefined || only === 'full-stack-instructions') {
  withinBudget = (await runFullStackInstructions()) && withinBudget;
}
// Every verdict of this Node line again, in one place (issue #18): the figure, its reference and its spread.
console.log(`\nBudgets on Node ${process.version}:`);
for (const line of verdictsSoFar()) console.log(`  ${line.replace(/^budget( check)?: /, '')}`);
if (!withinBudget) {
  console.error('\nA budget was missed (see OVER BUDGET above).');
  process.exitCode = 1;
}

// `npm run bench`: every benchmark on the running node (scripts/node-matrix.mjs runs this on Node 20 and 24).
import { runAsyncHop } from './core-async-hop.mjs';
import { runCoreMicro } from './core-micro.mjs';
import { runHttpSeed } from './http-seed/run.mjs';

const only = process.env.BENCH_ONLY; // core | http
let withinBudget = true;
if (only === undefined || only === 'core') {
  withinBudget = runCoreMicro() && withinBudget;
  runAsyncHop();
}
if (only === undefined || only === 'http') withinBudget = (await runHttpSeed()) && withinBudget;
if (!withinBudget) {
  console.error('\nA budget was missed (see OVER BUDGET above).');
  process.exitCode = 1;
}

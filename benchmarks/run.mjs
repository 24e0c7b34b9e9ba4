// `npm run bench`: every benchmark on the running node (scripts/node-matrix.mjs runs this on Node 20 and 24).
import { runAsyncHop } from './core-async-hop.mjs';
import { runCoreMicro } from './core-micro.mjs';

const withinBudget = runCoreMicro();
runAsyncHop();
if (!withinBudget) {
  console.error('\nA budget was missed (see OVER BUDGET above).');
  process.exitCode = 1;
}

// Issue #18's req/s budget (Ambient at least 0.98x the hand-written AsyncLocalStorage middleware, on Node 24 and
// 26), counted in machine instructions the load runs' real server (server.mjs, apps.mjs) executes per request
// once V8 has stopped compiling. The method, and why it is this one: steady-instructions.mjs.
import { fileURLToPath } from 'node:url';
import {
  canCountInstructions,
  printSteadyRow,
  steadyBudget,
  steadyInstructions,
  steadyMethod,
  steadyRatio,
} from '../steady-instructions.mjs';
import { labels, selectedFrameworks } from './variants.mjs';

const serverFile = fileURLToPath(new URL('server.mjs', import.meta.url));
const variants = ['als', 'als-echo', 'ambient'];
const rpsBudget = 0.98;
const budgetLines = ['v24.', 'v26.'];

export async function runInstructions() {
  if (!(await canCountInstructions('framework instructions'))) return true;
  let withinBudget = true;
  console.log(
    `\nServer instructions per request (callgrind, V8 --predictable), GET /users/:id, Node ${process.version}: ` +
      steadyMethod,
  );
  for (const framework of selectedFrameworks()) {
    const figures = await steadyInstructions(serverFile, (variant) => [framework, variant], variants, '/users/42');
    for (const variant of variants) {
      printSteadyRow(`${framework} ${labels[variant]}`, figures[variant], figures.als, "the hand-written middleware's");
    }
    const rps = steadyRatio(figures.als, figures.ambient);
    const echoed = steadyRatio(figures['als-echo'], figures.ambient).ratio;
    const text =
      `${framework}, Ambient's req/s as instructions allow, over the hand-written middleware's` +
      ` (over the one that echoes its id too: ${echoed.toFixed(3)}x)`;
    if (!budgetLines.some((line) => process.version.startsWith(line))) {
      console.log(`  ${text}: ${rps.ratio.toFixed(3)}x (the budget is Node 24's and 26's)`);
      continue;
    }
    withinBudget = steadyBudget(text, rps, rpsBudget) && withinBudget;
  }
  return withinBudget;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = (await runInstructions()) ? 0 : 1;

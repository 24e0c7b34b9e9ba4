// What honoContext() costs a request on @hono/node-server, against what Hono users mount today for the same job:
// Hono's own contextStorage() and requestId() (getContext() reads the id back), and against no context at all.
// The budget keeps Ambient's middleware, which also validates the id, reads the trace and binds Node's request
// and response, within 1.03x the instructions a request of Hono's own pair.
//   instructions: each server in a process of its own under callgrind (apps.mjs's serverInstructions), one process
//     a variant; a ratio within 0.004 of its budget is not resolved.
import { fileURLToPath } from 'node:url';
import { serverInstructions } from './apps.mjs';
import { budget, fixed, hasCallgrind, printTable, twoAtATime } from './harness.mjs';

const variants = ['bare', 'hono-own', 'ambient'];
const instructionBudget = 1.03;

export async function run() {
  if (!hasCallgrind()) throw new Error('hono: needs valgrind with callgrind_control');
  const counts = await twoAtATime(variants, (variant) => serverInstructions('hono', variant));
  const of = (variant) => counts[variants.indexOf(variant)];
  const reference = of('hono-own').perUnit;
  printTable(`hono on @hono/node-server, GET /users/:id, Node ${process.version}: a request`, [
    ['', 'instructions', "over Hono's own pair", 'compiling (left out)'],
    ...variants.map((variant) => {
      const { perUnit, compiling } = of(variant);
      return [variant, fixed(perUnit), `${(perUnit / reference).toFixed(3)}x`, fixed(compiling)];
    }),
  ]);
  const ratio = of('ambient').perUnit / reference;
  budget(
    `hono: Ambient ${ratio.toFixed(3)}x the instructions a request of Hono's contextStorage + requestId (<= ${instructionBudget}x)`,
    ratio <= instructionBudget,
    Math.abs(ratio - instructionBudget) < 0.004 && 'within 0.004 of the budget',
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await run();

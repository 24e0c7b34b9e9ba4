// What AmbientModule costs a request of a Nest 12 application, on express and on fastify, against the same
// application with the hand-written AsyncLocalStorage middleware (hand-written.mjs) and with nestjs-cls (its
// ClsModule mounted as middleware, generating an id), Nest with no context printed beside (nest-app.mjs). The
// budgets: AmbientModule uses no more instructions a request than nestjs-cls, and at most 1.03x those of the
// hand-written middleware. Instructions as frameworks.bench.mjs counts them: each server in a process of its own
// under callgrind, one process a variant.
import { fileURLToPath } from 'node:url';
import { serverInstructions } from './apps.mjs';
import { budget, fixed, hasCallgrind, printTable, twoAtATime } from './harness.mjs';

const platforms = ['nest-express', 'nest-fastify'];
const variants = ['bare', 'hand-written', 'nestjs-cls', 'ambient'];
const instructionBudget = 1.03;

export async function run() {
  if (!hasCallgrind()) throw new Error('nestjs: needs valgrind with callgrind_control');
  const jobs = platforms.flatMap((platform) => variants.map((variant) => [platform, variant]));
  const counts = await twoAtATime(jobs, ([platform, variant]) => serverInstructions(platform, variant));
  const of = (platform, variant) => counts[jobs.findIndex(([p, v]) => p === platform && v === variant)].perUnit;
  for (const platform of platforms) {
    const reference = of(platform, 'hand-written');
    printTable(`${platform}, GET /users/:id, Node ${process.version}: a request`, [
      ['', 'instructions', 'over bare', 'ratio to hand-written'],
      ...variants.map((variant) => [
        variant,
        fixed(of(platform, variant)),
        fixed(of(platform, variant) - of(platform, 'bare')),
        `${(of(platform, variant) / reference).toFixed(3)}x`,
      ]),
    ]);
    const ambient = of(platform, 'ambient');
    const ratio = ambient / reference;
    budget(
      `${platform}: AmbientModule ${ratio.toFixed(3)}x the hand-written middleware's instructions a request (<= ${instructionBudget}x)`,
      ratio <= instructionBudget,
      Math.abs(ratio - instructionBudget) < 0.004 && 'within 0.004 of the budget',
    );
    const toCls = ambient / of(platform, 'nestjs-cls');
    budget(`${platform}: AmbientModule ${toCls.toFixed(3)}x nestjs-cls's instructions a request (<= 1x)`, toCls <= 1);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await run();

// What Ambient's express, koa and fastify adapters cost a request, against the hand-written AsyncLocalStorage
// middleware that does the same work (hand-written.mjs, conformant: reference.test.mjs). The budgets keep an
// adapter within what writing it by hand would cost: at most 1.03x its instructions a request, and at most 300
// heap bytes a request more. The simplest echoing hook (no listener bound, not conformant) is printed beside.
//   instructions: each server in a process of its own under callgrind (apps.mjs's serverInstructions); one process
//     a variant, since a server's count repeats within 0.2%: a ratio within 0.004 of its budget is not resolved.
//   bytes: each server with --expose-gc and a young generation larger than a burst allocates; the heap's growth
//     over 1,500 requests (fewer if the collector ran) from a full collection, after 4,000 (median of 3 bursts).
//   load, Node 24 only: req/s and server CPU a request of Ambient and the echoing hook in alternating rounds (no
//     budget: on this VM they move by more than the budgets are about).
import { fileURLToPath } from 'node:url';
import { serverInstructions } from './apps.mjs';
import {
  budget,
  countedV8,
  fixed,
  hasCallgrind,
  iqr,
  loadRounds,
  median,
  printTable,
  startChild,
  twoAtATime,
} from './harness.mjs';

const frameworks = (process.env.BENCH_FRAMEWORKS ?? 'express,koa,fastify').split(',');
const variants = ['hand-written', 'echo-only', 'ambient'];
const serverFile = fileURLToPath(new URL('server.mjs', import.meta.url));
const instructionBudget = 1.03;
const bytesBudget = 300;

/**
 * Heap bytes a request: the median of 3 bursts on one connection after 4,000 requests, each of 1,500 requests, or
 * fewer where the collector ran inside one (a request that allocates 40 KB fills the young generation sooner).
 */
async function allocatedBytes(framework, variant) {
  // The collector's own schedule: a fixed one (countedV8's) keeps the young generation small.
  const v8 = countedV8.filter((flag) => flag !== '--predictable-gc-schedule');
  const execArgv = [...v8, '--expose-gc', '--max-semi-space-size=64', '--min-semi-space-size=64'];
  const server = await startChild(serverFile, [framework, variant], { execArgv });
  try {
    await server.burst({ connections: 1, amount: 4_000 });
    const bursts = [];
    for (let amount = 1_500; bursts.length < 3;) {
      const { bytesPerRequest } = await server.burst({ connections: 1, amount });
      if (!Number.isNaN(bytesPerRequest)) bursts.push(bytesPerRequest);
      else if (amount > 100) amount = Math.round(amount / 2);
      else throw new Error(`${framework} ${variant}: the collector ran inside every burst`);
    }
    return median(bursts);
  } finally {
    await server.stop();
  }
}

/** Node 24: Ambient and the echoing hook, natively, in alternating 1-second rounds. */
async function load(framework) {
  const servers = [];
  try {
    for (const variant of ['echo-only', 'ambient']) {
      servers.push({ variant, ...(await startChild(serverFile, [framework, variant])) });
    }
    const rounds = Number(process.env.BENCH_LOAD_ROUNDS ?? 5);
    const { full, fixed: atRate, overallRate } = await loadRounds(servers, rounds, { connections: 50, duration: 1 });
    const ratio = (samples, metric) => samples.map((s) => s.ambient[metric] / s['echo-only'][metric]);
    const rps = ratio(full, 'rps');
    const cpu = ratio(atRate, 'cpuPerRequest');
    console.log(
      `  load, ${rounds} alternating rounds: Ambient ${fixed(median(full.map((s) => s.ambient.rps)))} req/s, ` +
        `${median(rps).toFixed(3)}x the echoing hook's (IQR ${iqr(rps, 3)}); server CPU a request at ` +
        `${overallRate} req/s ${median(atRate.map((s) => s.ambient.cpuPerRequest)).toFixed(1)} µs, ` +
        `${median(cpu).toFixed(3)}x (IQR ${iqr(cpu, 3)})`,
    );
  } finally {
    for (const server of servers) await server.stop();
  }
}

export async function run() {
  if (!hasCallgrind()) throw new Error('frameworks: needs valgrind with callgrind_control');
  const jobs = frameworks.flatMap((framework) => variants.map((variant) => [framework, variant]));
  // The byte counts, one server at a time beside the two counted under callgrind: they wait on their client more
  // than they use a core, and neither count depends on what else runs.
  const [counts, bytes] = await Promise.all([
    twoAtATime(jobs, ([framework, variant]) => serverInstructions(framework, variant)),
    jobs.reduce(
      async (done, [framework, variant]) => [...(await done), await allocatedBytes(framework, variant)],
      Promise.resolve([]),
    ),
  ]);
  const of = (list, framework, variant) => list[jobs.findIndex(([f, v]) => f === framework && v === variant)];
  for (const framework of frameworks) {
    const reference = of(counts, framework, 'hand-written').perUnit;
    const referenceBytes = of(bytes, framework, 'hand-written');
    printTable(`${framework}, GET /users/:id, Node ${process.version}: a request`, [
      ['', 'instructions', 'ratio', 'compiling (left out)', 'heap bytes', 'over hand-written'],
      ...variants.map((variant) => {
        const { perUnit, compiling } = of(counts, framework, variant);
        const allocated = of(bytes, framework, variant);
        return [
          variant,
          fixed(perUnit),
          `${(perUnit / reference).toFixed(3)}x`,
          fixed(compiling),
          fixed(allocated),
          fixed(allocated - referenceBytes),
        ];
      }),
    ]);
    const ratio = of(counts, framework, 'ambient').perUnit / reference;
    budget(
      `${framework}: Ambient ${ratio.toFixed(3)}x the hand-written middleware's instructions a request (<= ${instructionBudget}x)`,
      ratio <= instructionBudget,
      Math.abs(ratio - instructionBudget) < 0.004 && 'within 0.004 of the budget',
    );
    const extra = of(bytes, framework, 'ambient') - referenceBytes;
    budget(
      `${framework}: Ambient ${extra >= 0 ? '+' : ''}${fixed(extra)} heap bytes a request over it (<= +${bytesBudget})`,
      extra <= bytesBudget,
    );
    if (process.version.startsWith('v24.')) await load(framework);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await run();

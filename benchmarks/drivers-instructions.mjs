// Issue #16's in-process budget (the guard adds at most 1 µs a query on Node 24), counted in instructions: the
// workload of drivers.mjs (a) (callback `pool.query('SELECT 1 AS x')`, each in a request scope of its own, 10 in
// flight on a pool of 10, or DRIVERS_IN_FLIGHT, over in-memory-servers.mjs), in processes of their own under
// valgrind's callgrind with V8's --predictable. mysql2's in-process rounds move by about ±1 µs a query on this VM
// (their A/A control), as much as the budget; a count repeats.
//
// Method. Each process opens its pool outside any request, installs its variant, then runs chunks of 5,000
// queries, one after another, until one in which V8's compilers took under 5% of the instructions (at least
// 20,000 queries, at most 80,000); the next 10,000 queries are counted, less what V8's compilers still took in
// them (callgrind-profile.mjs). The parent process cuts the profile between chunks (callgrind_control) and reads
// it, so that nothing of the counting runs in the counted part. Two processes a variant. Instructions are not
// time, so no verdict is printed here: benchmarks/README.md reads the counts beside drivers.mjs's times.
//
//   node benchmarks/drivers-instructions.mjs              (pg, mysql2 and mysql2 3.19, on this Node)
//   DRIVERS_ONLY=mysql2 node benchmarks/drivers-instructions.mjs
//   DRIVERS_CALM=0.005 node benchmarks/drivers-instructions.mjs   (warm up until compiling takes under 0.5%)
//   DRIVERS_IN_FLIGHT=50 node benchmarks/drivers-instructions.mjs (most queries wait for a connection: hand-offs)
//   BENCH_ONLY=drivers-instructions node benchmarks/run.mjs
import { fork } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { callgrindProfile, dumpCallgrind, partInstructions, v8Compilers } from './callgrind-profile.mjs';
import { noopSubscriber, pools, poolSize, workload } from './drivers.mjs';
import { median, range, twoAtATime } from './harness.mjs';
import { mysqlStream, pgStream } from './in-memory-servers.mjs';
import { canCountInstructions } from './steady-instructions.mjs';

const chunk = 5_000;
const warmUpChunks = { least: 4, most: 16 };
const counted = 10_000;
const calmCompiling = Number(process.env.DRIVERS_CALM ?? 0.05);
const repeats = 2;
// 10 (the pool's size): each query finds a free connection; 50: most wait for one another request releases.
const inFlight = Number(process.env.DRIVERS_IN_FLIGHT ?? poolSize);
if (!Number.isInteger(inFlight) || inFlight < 1) {
  throw new Error(`DRIVERS_IN_FLIGHT must be a whole number of queries, 1 or more: ${process.env.DRIVERS_IN_FLIGHT}`);
}

/**
 * What each driver is measured with: the variants of drivers.mjs (a) that decide or explain the budget, and the
 * opt-in query log with a listener that does nothing (no budget names it; its times did not resolve for mysql2).
 */
const variantsOf = {
  pg: ['none', 'guard', 'guard + onQuery'],
  mysql2: ['none', 'guard', 'guard + onQuery', 'guard, channels alone', 'no-op subscriber'],
  'mysql2-319': ['none', 'guard', 'guard + onQuery'],
};

/** In the child: the pool, the variant installed, and chunks of queries run as the parent says. */
async function child(driverName, variant) {
  const require = createRequire(fileURLToPath(new URL('../packages/drivers/package.json', import.meta.url)));
  const driver = require(driverName);
  const { guardDrivers } = require('@ambient/drivers-context');
  const { requestContext } = require('@ambient/core');
  const [pool] = pools([
    {
      name: driverName === 'pg' ? 'pg' : 'mysql2',
      driver,
      config: driverName === 'pg' ? { stream: pgStream } : { stream: mysqlStream, user: 'root' },
    },
  ]);
  await Promise.all(Array.from({ length: poolSize }, () => new Promise((resolve) => pool.query(resolve))));
  const passedIn = driverName === 'pg' ? { pg: driver } : { mysql2: driver };
  const install = {
    none: () => undefined,
    guard: () => guardDrivers(passedIn),
    'guard + onQuery': () => guardDrivers({ ...passedIn, onQuery: () => undefined }),
    'guard, channels alone': () => guardDrivers(),
    'no-op subscriber': noopSubscriber,
  }[variant];
  install();
  process.on('message', async (message) => {
    if (message === 'exit') process.exit(0);
    await workload(requestContext, pool.query, message, inFlight);
    process.send('ran');
  });
  process.send('ready');
}

/** One process under callgrind: instructions a counted query, without compiling, and whether V8 was calm. */
async function countProcess(driverName, variant) {
  const directory = await mkdtemp(join(tmpdir(), 'ambient-drivers-callgrind-'));
  const profile = join(directory, 'callgrind.out');
  const worker = fork(fileURLToPath(import.meta.url), ['child', driverName, variant], {
    execPath: 'valgrind',
    execArgv: [...callgrindProfile(profile), process.execPath, '--predictable'],
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let errors = '';
  worker.stderr.on('data', (data) => (errors = (errors + data).slice(-4000)));
  const exited = new Promise((resolve) => worker.once('exit', resolve));
  const reply = () =>
    new Promise((resolve, reject) => {
      const onExit = (code) => reject(new Error(`${driverName} ${variant}: exited ${code}\n${errors}`));
      worker.once('exit', onExit);
      worker.once('message', (message) => {
        worker.off('exit', onExit);
        resolve(message);
      });
    });
  try {
    await reply(); // ready
    let parts = 0;
    const runAndCount = async (count) => {
      worker.send(count);
      await reply();
      await dumpCallgrind(worker.pid);
      parts++;
      const part = await partInstructions(`${profile}.${parts}`, v8Compilers);
      return { ...part, calm: part.within < calmCompiling * part.total };
    };
    let warm = false;
    while (parts < warmUpChunks.most && !(warm && parts >= warmUpChunks.least)) warm = (await runAndCount(chunk)).calm;
    const { total, within, calm } = await runAndCount(counted);
    return {
      perQuery: (total - within) / counted,
      compiling: within / counted,
      warmUp: parts - 1,
      calm: warm && calm,
    };
  } finally {
    if (worker.connected) worker.send('exit');
    await exited;
    await rm(directory, { recursive: true, force: true });
  }
}

export async function runDriversInstructions() {
  if (!(await canCountInstructions('drivers-instructions'))) return true;
  console.log(
    `\nguardDrivers in instructions, Node ${process.version}: ${counted} callback queries counted after ` +
      `${warmUpChunks.least * chunk} to ${warmUpChunks.most * chunk} of warm-up, ${inFlight} in flight on a pool ` +
      `of ${poolSize}, V8's compilers left out; ` +
      `median (range) of ${repeats} processes, --predictable`,
  );
  // DRIVERS_ONLY=mysql2,mysql2-319: some of the drivers.
  const only = process.env.DRIVERS_ONLY?.split(',');
  // DRIVERS_VARIANTS='none;guard': some of the variants (names hold commas).
  const someVariants = process.env.DRIVERS_VARIANTS?.split(';');
  for (const [driverName, allVariants] of Object.entries(variantsOf)) {
    if (only !== undefined && !only.includes(driverName)) continue;
    const variants = allVariants.filter((variant) => someVariants?.includes(variant) ?? true);
    const runs = variants.flatMap((variant) => Array.from({ length: repeats }, () => variant));
    const figures = Object.fromEntries(variants.map((variant) => [variant, []]));
    await twoAtATime(runs, async (variant) => figures[variant].push(await countProcess(driverName, variant)));
    // Without none (DRIVERS_VARIANTS='guard'), the counts alone, for comparing two builds of one variant.
    const none = figures.none === undefined ? undefined : median(figures.none.map((figure) => figure.perQuery));
    console.log(`  ${driverName === 'mysql2-319' ? 'mysql2 3.19 (patched)' : driverName}:`);
    for (const variant of variants) {
      const counts = figures[variant].map((figure) => figure.perQuery);
      const over = variant === 'none' || none === undefined ? '' : `  +${(median(counts) - none).toFixed(0)} over none`;
      const calm = figures[variant].every((figure) => figure.calm) ? '' : ' (V8 still compiling)';
      console.log(
        `    ${variant.padEnd(22)} ${median(counts).toFixed(0).padStart(8)} (${range(counts)}) a query${over}; ` +
          `compiling left out ${median(figures[variant].map((figure) => figure.compiling)).toFixed(0)}; ` +
          `warm-up ${range(figures[variant].map((figure) => figure.warmUp * chunk))}${calm}`,
      );
    }
  }
  return true;
}

if (process.argv[2] === 'child') await child(process.argv[3], process.argv[4]);
else if (process.argv[1] === fileURLToPath(import.meta.url)) await runDriversInstructions();

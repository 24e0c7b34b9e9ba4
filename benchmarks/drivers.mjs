// What guardDrivers({ pg, mysql2 }) costs a callback-style application, on the real PostgreSQL (127.0.0.1:5432)
// and MariaDB (127.0.0.1:3306). Budgets (issue #16): the guard adds at most 1 µs of CPU per query (the issue
// states it for Node 24, in-process; checked on every version run), and a callback-heavy workload keeps at
// least 0.97x the queries/s it has with no guard.
//
// Variants: `none` (no guard: callbacks run in whichever context the driver calls them from) and `guard`
// (guardDrivers({ pg, mysql2 }): mysql2 3.20+ through its TracingChannel events, pg through its patched
// Pool#connect/#query and Client#connect/#query). For mysql2 also `no-op subscriber`: empty handlers on the
// channels the guard binds, so mysql2 and Node trace every call as they do for any subscriber (an APM's, the
// guard's); the guard's own share is what it costs beyond that. One guard per process, so it is disposed of
// after every guarded round. OpenTelemetry's @opentelemetry/instrumentation-pg and -mysql2 are not installed in
// this repository, so no peer is compared here.
//
// Method. One process, pools opened and warmed once, outside any request (a pool of 10 per driver), so no round
// opens a socket. Every query is issued inside a requestContext.run of its own, as a request would, with a
// callback that issues the next one: `SELECT 1 AS x` through pool.query(text, cb). Each round installs its
// variant, runs 1,000 queries unmeasured (installing and disposing of the guard swaps prototype methods and
// deoptimises their callers, for both variants alike), then measures.
//   (a) CPU per query: the process's user CPU time (process.cpuUsage) around 10,000 queries at 10 in flight on the
//       pool of 10, so no query waits for a connection: the plain callback path. User time, because the guard is
//       JavaScript; the kernel's share (the loopback writes, about half the total) moves with how the database's
//       processes are scheduled and is printed beside it. The variants none, guard and none again alternate
//       round by round (15 rounds); medians per variant. The second `none` is an A/A control: its difference from
//       the first is what this machine does not resolve. The paired per-round differences are printed with
//       their interquartile range.
//   (b) Queries/s under load: 8,000 queries a round at 50 in flight on the pool of 10, so that most queries wait
//       for a connection another request releases (the hand-off path the guard exists for); none and guard
//       alternate (11 rounds); median and min-max of each, and the per-round ratios guard/none.
//
//   node benchmarks/drivers.mjs       (skips a driver whose server is not reachable)
//   BENCH_ONLY=drivers node benchmarks/run.mjs
import { tracingChannel } from 'node:diagnostics_channel';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { reachable, services } from '../scripts/services.mjs';
import { median, quantile } from './harness.mjs';

const require = createRequire(fileURLToPath(new URL('../packages/drivers/package.json', import.meta.url)));
const cpuRounds = Number(process.env.DRIVERS_CPU_ROUNDS ?? 15);
const loadRounds = Number(process.env.DRIVERS_LOAD_ROUNDS ?? 11);
const cpuQueries = 10_000;
const loadQueries = 8_000;
const poolSize = 10;
const settleQueries = 1_000;

/** Runs `queries` callback queries, `inFlight` at a time, each issued in a request scope of its own. */
function workload(requestContext, query, queries, inFlight) {
  return new Promise((resolve, reject) => {
    let issued = 0;
    let finished = 0;
    const next = () => {
      if (issued === queries) return;
      issued++;
      requestContext.run({ requestId: `bench-${issued}` }, query, (error) => {
        if (error) return reject(error);
        if (++finished === queries) resolve();
        else next();
      });
    };
    for (let i = 0; i < inFlight; i++) next();
  });
}

/** Empty handlers on the TracingChannels guardDrivers binds for mysql2: what any subscriber makes mysql2 do. */
function noopSubscriber() {
  const handlers = { start() {}, end() {}, asyncStart() {}, asyncEnd() {}, error() {} };
  const channels = ['mysql2:query', 'mysql2:execute', 'mysql2:pool:connect'].map((name) => tracingChannel(name));
  for (const channel of channels) channel.subscribe(handlers);
  return { dispose: () => channels.forEach((channel) => channel.unsubscribe(handlers)) };
}

/**
 * One round of a variant: `install` it (undone afterwards), run `settle` unmeasured (installing or disposing of
 * the guard swaps prototype methods and deoptimises their callers: recompiled there), then `measure`, timed.
 */
async function round(install, settle, measure) {
  const installed = install();
  try {
    await settle();
    const cpu = process.cpuUsage();
    const start = process.hrtime.bigint();
    await measure();
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    const { user, system } = process.cpuUsage(cpu);
    return { seconds, user, system };
  } finally {
    installed?.dispose();
  }
}

/** Runs every variant once per round, alternating, and returns each one's samples of `sample(result)`. */
async function alternateRounds(variants, rounds, settle, measure, sample) {
  const samples = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
  for (let r = 0; r < rounds; r++) {
    for (const [name, install] of Object.entries(variants)) {
      samples[name].push(sample(await round(install, settle, measure)));
    }
  }
  return samples;
}

const spread = (values, digits = 0) => `${quantile(values, 0).toFixed(digits)}-${quantile(values, 1).toFixed(digits)}`;

export async function runDrivers() {
  const pg = require('pg');
  const mysql2 = require('mysql2');
  const { guardDrivers } = require('@ambient/drivers-context');
  const { requestContext } = require('@ambient/core');
  const modules = { pg, mysql2 };
  const drivers = [];
  if (await reachable(services.postgres)) {
    const pool = new pg.Pool({ host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test', max: poolSize });
    drivers.push({ name: 'pg', query: (done) => pool.query('SELECT 1 AS x', done), close: () => pool.end() });
  } else console.log('\ndrivers: pg skipped, PostgreSQL is not reachable on 127.0.0.1:5432');
  if (await reachable(services.mariadb)) {
    const pool = mysql2.createPool({ host: '127.0.0.1', user: 'root', database: 'test', connectionLimit: poolSize });
    drivers.push({
      name: 'mysql2',
      query: (done) => pool.query('SELECT 1 AS x', done),
      close: () => pool.promise().end(),
    });
  } else console.log('\ndrivers: mysql2 skipped, MariaDB is not reachable on 127.0.0.1:3306');
  if (drivers.length === 0) return true;

  console.log(
    `\nguardDrivers({ pg, mysql2 }), Node ${process.version}: callback queries (SELECT 1) on a pool of ${poolSize}, ` +
      'each in a request scope of its own',
  );
  const iqr = (values) => `${quantile(values, 0.25).toFixed(2)} to ${quantile(values, 0.75).toFixed(2)}`;
  const signed = (value) => `${value >= 0 ? '+' : ''}${value.toFixed(2)}`;
  let withinBudget = true;
  for (const driver of drivers) {
    const queries = (count, inFlight) => () => workload(requestContext, driver.query, count, inFlight);
    const variants = {
      none: () => undefined,
      guard: () => guardDrivers(modules),
      ...(driver.name === 'mysql2' ? { 'no-op subscriber': noopSubscriber } : {}),
    };
    // Every connection opened outside any request (poolSize queries at once), then every variant's paths compiled.
    await Promise.all(Array.from({ length: poolSize }, () => new Promise((resolve) => driver.query(resolve))));
    for (const install of Object.values(variants)) {
      await round(install, queries(settleQueries, 50), queries(loadQueries, 50));
    }

    // (a) User CPU per query on the plain callback path; `none again` is the A/A control.
    const cpuVariants = { ...variants, 'none again': variants.none };
    const cpu = await alternateRounds(
      cpuVariants,
      cpuRounds,
      queries(settleQueries, poolSize),
      queries(cpuQueries, poolSize),
      ({ user, system }) => ({ user: user / cpuQueries, total: (user + system) / cpuQueries }),
    );
    const user = (name) => cpu[name].map((values) => values.user);
    const overNone = (name) => user(name).map((value, i) => value - user('none')[i]);
    const added = median(user('guard')) - median(user('none'));
    console.log(
      `  ${driver.name}: (a) user CPU µs/query at ${poolSize} in flight, median of ${cpuRounds} rounds (min-max); ` +
        'user + system in brackets',
    );
    for (const name of Object.keys(cpuVariants)) {
      const total = median(cpu[name].map((values) => values.total));
      const difference = name === 'none' ? '' : `  ${signed(median(user(name)) - median(user('none')))} over none`;
      console.log(
        `    ${name.padEnd(17)} ${median(user(name)).toFixed(2).padStart(6)} (${spread(user(name), 2)}) ` +
          `[${total.toFixed(1)}]${difference} (paired per round: IQR ${name === 'none' ? '-' : iqr(overNone(name))})`,
      );
    }
    if (cpu['no-op subscriber'] !== undefined) {
      const own = user('guard').map((value, i) => value - user('no-op subscriber')[i]);
      console.log(
        `    guard - no-op subscriber: ${signed(median(user('guard')) - median(user('no-op subscriber')))} ` +
          `(paired per round: IQR ${iqr(own)}): the guard's own share beyond the tracing any subscriber turns on`,
      );
    }
    console.log(`    budget: the guard adds <= 1 µs: ${added <= 1 ? 'met' : 'OVER BUDGET'} (${signed(added)})`);

    // (b) Queries/s at 50 in flight: most queries wait for a connection another request releases.
    const rate = await alternateRounds(
      variants,
      loadRounds,
      queries(settleQueries, 50),
      queries(loadQueries, 50),
      ({ seconds }) => loadQueries / seconds,
    );
    console.log(`  ${driver.name}: (b) queries/s at 50 in flight, median of ${loadRounds} rounds (min-max)`);
    for (const name of Object.keys(variants)) {
      const perRound = rate[name].map((value, i) => value / rate.none[i]);
      const ratio = median(rate[name]) / median(rate.none);
      console.log(
        `    ${name.padEnd(17)} ${median(rate[name]).toFixed(0).padStart(6)} (${spread(rate[name])})` +
          (name === 'none'
            ? ''
            : `  ${ratio.toFixed(3)}x none (per-round ratios ${spread(perRound, 2)}, IQR ${iqr(perRound)})`),
      );
    }
    const ratio = median(rate.guard) / median(rate.none);
    console.log(`    budget: guard >= 0.97x none: ${ratio >= 0.97 ? 'met' : 'OVER BUDGET'} (${ratio.toFixed(3)}x)`);
    withinBudget = withinBudget && added <= 1 && ratio >= 0.97;
    await driver.close();
  }
  return withinBudget;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!(await runDrivers())) process.exitCode = 1;
}

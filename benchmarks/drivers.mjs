// What guardDrivers({ pg, mysql2 }) costs a callback-style application. Budgets (issue #16): the guard adds at
// most 1 µs per query on Node 24, measured in-process, and a callback-heavy workload on the real servers keeps at
// least 0.97x the queries/s it has with no guard.
//
// Variants: `none` (no guard: callbacks run in whichever context the driver calls them from), `guard`
// (guardDrivers({ pg, mysql2 }): mysql2 3.20+ through its TracingChannel events and its patched
// Pool#getConnection, pg through its patched Pool#connect/#query and Client#connect/#query), and `opentelemetry`:
// OpenTelemetry's own @opentelemetry/instrumentation-pg and -mysql2 with its AsyncLocalStorageContextManager and
// no SDK, so their spans are non-recording and what remains is their context binding (each wraps the query and
// its callback in context.bind). For mysql2 also `no-op subscriber`: empty handlers on the channels the guard
// binds, so mysql2 and Node trace every call as they do for any subscriber (an APM's, the guard's); the guard's
// own share is what it costs beyond that. And `guard, channels alone`: guardDrivers without the mysql2 module,
// whose channels then run every getConnection outside the request (with the module, only a getConnection that
// may open a socket leaves it). One guard per process, so it is disposed of after every guarded round; the
// instrumentations are registered before pg and mysql2 are loaded (they patch on require) and enabled only for
// their rounds.
//
// Method. Pools of 10 opened and warmed once, outside any request, so no round opens a socket. Every query is
// issued inside a requestContext.run of its own, as a request would, with a callback that issues the next one:
// `SELECT 1 AS x` through pool.query(text, cb). Each round installs its variant, runs 1,000 queries unmeasured
// (installing and disposing of the guard swaps prototype methods and deoptimises their callers, for every
// variant alike), then measures. The variants alternate round by round; a second `none` in every round is an A/A
// control, whose difference from the first is what this machine does not resolve.
//   (a) In-process: the drivers' whole client code over in-memory sockets that answer as the servers do
//       (in-memory-servers.mjs), so nothing crosses the kernel; their replies arrive in the context the socket
//       was opened in, as a TCP socket's do, so a guard pays for switching a callback back to its caller as it
//       does on a real socket. The process's CPU time (user + system) around 20,000 queries on the pool of 10,
//       in ns per query, twice: at 10 in flight, where each query finds a free connection, and at 50, where
//       most wait for one that another request releases (the hand-off the guard exists for: it switches into
//       the waiter, and back from the socket); 15 rounds, medians, and the paired per-round differences from
//       `none` with their interquartile range. This is the budget's measurement, at both.
//   (b) On the real PostgreSQL (127.0.0.1:5432) and MariaDB (127.0.0.1:3306): the process's user CPU per query
//       around 10,000 queries at 10 in flight, the kernel's share printed beside it (15 rounds).
//   (c) Queries/s on the real servers: 8,000 queries a round at 50 in flight on the pool of 10, so that most
//       queries wait for a connection another request releases (the hand-off path the guard exists for); 11
//       rounds; median and min-max of each, and the per-round ratios to none.
//
//   node benchmarks/drivers.mjs       ((b) and (c) skip a driver whose server is not reachable)
//   DRIVERS_IN_PROCESS_ONLY=1 node benchmarks/drivers.mjs      (a) only
//   BENCH_ONLY=drivers node benchmarks/run.mjs
import { tracingChannel } from 'node:diagnostics_channel';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { reachable, services } from '../scripts/services.mjs';
import { median, quantile, verdict } from './harness.mjs';
import { mysqlStream, pgStream } from './in-memory-servers.mjs';

const require = createRequire(fileURLToPath(new URL('../packages/drivers/package.json', import.meta.url)));
const cpuRounds = Number(process.env.DRIVERS_CPU_ROUNDS ?? 15);
const loadRounds = Number(process.env.DRIVERS_LOAD_ROUNDS ?? 11);
const inProcessQueries = 20_000;
const cpuQueries = 10_000;
const loadQueries = 8_000;
export const poolSize = 10;
/** In flight on the pool of 10 where most queries wait for a connection: (a)'s hand-off, and (c). */
const handOffInFlight = 50;
const settleQueries = 1_000;

/** Runs `queries` callback queries, `inFlight` at a time, each issued in a request scope of its own. */
export function workload(requestContext, query, queries, inFlight) {
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
export function noopSubscriber() {
  const handlers = { start() {}, end() {}, asyncStart() {}, asyncEnd() {}, error() {} };
  const channels = ['mysql2:query', 'mysql2:execute', 'mysql2:pool:connect'].map((name) => tracingChannel(name));
  for (const channel of channels) channel.subscribe(handlers);
  return { dispose: () => channels.forEach((channel) => channel.unsubscribe(handlers)) };
}

/**
 * OpenTelemetry's pg and mysql2 instrumentations, registered before either driver is loaded (they patch on
 * require), with OpenTelemetry's AsyncLocalStorage context manager and no SDK (non-recording spans: their context
 * binding only). Returns how to switch them on for a round; they are off until then.
 */
function openTelemetryInstrumentations() {
  const api = require('@opentelemetry/api');
  const { AsyncLocalStorageContextManager } = require('@opentelemetry/context-async-hooks');
  const { PgInstrumentation } = require('@opentelemetry/instrumentation-pg');
  const { MySQL2Instrumentation } = require('@opentelemetry/instrumentation-mysql2');
  api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  // Enabled on construction: their require hooks are in place for pg and mysql2, loaded next.
  const instrumentations = [new PgInstrumentation(), new MySQL2Instrumentation()];
  return {
    disable: () => instrumentations.forEach((instrumentation) => instrumentation.disable()),
    install: () => {
      instrumentations.forEach((instrumentation) => instrumentation.enable());
      return { dispose: () => instrumentations.forEach((instrumentation) => instrumentation.disable()) };
    },
  };
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
const iqr = (values, digits = 2) =>
  `${quantile(values, 0.25).toFixed(digits)} to ${quantile(values, 0.75).toFixed(digits)}`;
const signed = (value, digits = 2) => `${value >= 0 ? '+' : ''}${value.toFixed(digits)}`;

/**
 * Prints each variant's median per query with its min-max, and its paired per-round difference from `none`;
 * returns the guard's median difference.
 */
function printPerQuery(samples, unit, digits) {
  const over = (name) => samples[name].map((value, i) => value - samples.none[i]);
  for (const name of Object.keys(samples)) {
    const difference =
      name === 'none'
        ? ''
        : `  ${signed(median(samples[name]) - median(samples.none), digits)} over none ` +
          `(paired per round: IQR ${iqr(over(name), digits)})`;
    console.log(
      `    ${name.padEnd(17)} ${median(samples[name]).toFixed(digits).padStart(7)} ${unit} ` +
        `(${spread(samples[name], digits)})${difference}`,
    );
  }
  if (samples['no-op subscriber'] !== undefined) {
    const own = samples.guard.map((value, i) => value - samples['no-op subscriber'][i]);
    console.log(
      `    guard - no-op subscriber: ${signed(median(samples.guard) - median(samples['no-op subscriber']), digits)} ` +
        `(paired per round: IQR ${iqr(own, digits)}): the guard's own share beyond the tracing any subscriber turns on`,
    );
  }
  if (samples['guard + onQuery'] !== undefined) {
    const logged = samples['guard + onQuery'].map((value, i) => value - samples.guard[i]);
    console.log(
      `    onQuery over the guard: ${signed(median(samples['guard + onQuery']) - median(samples.guard), digits)} ` +
        `(paired per round: IQR ${iqr(logged, digits)}): reporting each query to a listener that does nothing`,
    );
  }
  return median(samples.guard) - median(samples.none);
}

/** The pools of one kind (in memory, or on the real servers): name, query(cb) and close() for each driver. */
export function pools(connections) {
  return connections.map(({ name, driver, config }) => {
    if (name === 'pg') {
      const pool = new driver.Pool({ ...config, max: poolSize });
      return { name, query: (done) => pool.query('SELECT 1 AS x', done), close: () => pool.end() };
    }
    const pool = driver.createPool({ ...config, connectionLimit: poolSize });
    return { name, query: (done) => pool.query('SELECT 1 AS x', done), close: () => pool.promise().end() };
  });
}

export async function runDrivers() {
  const openTelemetry = openTelemetryInstrumentations();
  const pg = require('pg');
  const mysql2 = require('mysql2');
  openTelemetry.disable();
  const { guardDrivers } = require('@ambient/drivers-context');
  const { requestContext } = require('@ambient/core');
  // mysql2 before 3.20 publishes no channels: the guard's wrapper path (patches.ts), in-process only.
  const mysql2Wrapped = { name: 'mysql2 3.19', driver: require('mysql2-319') };
  // The opt-in query log (`onQuery`) with a listener that does nothing: what reporting a query costs on top of
  // the guard, in process only (no budget names it; the README quotes it).
  const onQuery = () => undefined;
  const variantsFor = (driver, { queryLog = false } = {}) => {
    if (driver.name === mysql2Wrapped.name)
      return {
        none: () => undefined,
        guard: () => guardDrivers({ mysql2: mysql2Wrapped.driver }),
        ...(queryLog ? { 'guard + onQuery': () => guardDrivers({ mysql2: mysql2Wrapped.driver, onQuery }) } : {}),
      };
    return {
      none: () => undefined,
      guard: () => guardDrivers({ pg, mysql2 }),
      ...(queryLog ? { 'guard + onQuery': () => guardDrivers({ pg, mysql2, onQuery }) } : {}),
      opentelemetry: openTelemetry.install,
      ...(driver.name === 'mysql2'
        ? {
            'no-op subscriber': noopSubscriber,
            // mysql2 not passed in: its channels alone, which run every getConnection outside the request.
            'guard, channels alone': () => guardDrivers({ pg }),
          }
        : {}),
    };
  };
  const queries = (driver, count, inFlight) => () => workload(requestContext, driver.query, count, inFlight);
  /** Opens every connection outside any request, then runs each variant's paths once so they are compiled. */
  async function warm(driver, variants) {
    await Promise.all(Array.from({ length: poolSize }, () => new Promise((resolve) => driver.query(resolve))));
    for (const install of Object.values(variants)) {
      await round(
        install,
        queries(driver, settleQueries, handOffInFlight),
        queries(driver, loadQueries, handOffInFlight),
      );
    }
  }

  console.log(
    `\nguardDrivers({ pg, mysql2 }), Node ${process.version}: callback queries (SELECT 1) on a pool of ${poolSize}, ` +
      'each in a request scope of its own',
  );
  let withinBudget = true;

  // (a) In-process, over in-memory sockets: the budget's measurement.
  const inMemory = pools([
    { name: 'pg', driver: pg, config: { stream: pgStream } },
    { name: 'mysql2', driver: mysql2, config: { stream: mysqlStream, user: 'root' } },
    { name: mysql2Wrapped.name, driver: mysql2Wrapped.driver, config: { stream: mysqlStream, user: 'root' } },
  ]);
  for (const driver of inMemory) {
    const variants = variantsFor(driver, { queryLog: true });
    await warm(driver, variants);
    // At 10 in flight every query finds a free connection; at 50, most wait for one another request releases,
    // the hand-off the guard exists for, where it switches context twice (into the waiter, and back from the
    // socket) and pg-pool's queue is recorded. The budget holds for both.
    for (const inFlight of [poolSize, handOffInFlight]) {
      const samples = await alternateRounds(
        { ...variants, 'none again': variants.none },
        cpuRounds,
        queries(driver, settleQueries, inFlight),
        queries(driver, inProcessQueries, inFlight),
        ({ user, system }) => ((user + system) * 1000) / inProcessQueries,
      );
      console.log(
        `  ${driver.name}: (a) in-process over in-memory sockets, CPU ns/query at ${inFlight} in flight ` +
          `(${inFlight > poolSize ? 'most wait for a connection' : 'each finds a free connection'}), ` +
          `median of ${cpuRounds} rounds (min-max)`,
      );
      const added = printPerQuery(samples, 'ns', 0);
      verdict(
        `    budget: ${driver.name} at ${inFlight} in flight, the guard adds <= 1000 ns: ` +
          `${added <= 1000 ? 'met' : 'OVER BUDGET'} (${signed(added, 0)})`,
      );
      withinBudget = withinBudget && added <= 1000;
    }
    await driver.close();
  }

  // (b) and (c) on the real servers.
  const connections = [];
  if (process.env.DRIVERS_IN_PROCESS_ONLY === '1') {
    console.log('  (b) and (c) skipped: DRIVERS_IN_PROCESS_ONLY=1');
  } else if (await reachable(services.postgres)) {
    connections.push({
      name: 'pg',
      driver: pg,
      config: { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' },
    });
  } else console.log('\ndrivers: pg on the real server skipped, PostgreSQL is not reachable on 127.0.0.1:5432');
  if (process.env.DRIVERS_IN_PROCESS_ONLY === '1') {
    // (b) and (c) skipped, said above.
  } else if (await reachable(services.mariadb)) {
    connections.push({ name: 'mysql2', driver: mysql2, config: { host: '127.0.0.1', user: 'root', database: 'test' } });
  } else console.log('\ndrivers: mysql2 on the real server skipped, MariaDB is not reachable on 127.0.0.1:3306');
  for (const driver of pools(connections)) {
    const variants = variantsFor(driver);
    await warm(driver, variants);

    // (b) User CPU per query on the plain callback path; `none again` is the A/A control.
    const cpu = await alternateRounds(
      { ...variants, 'none again': variants.none },
      cpuRounds,
      queries(driver, settleQueries, poolSize),
      queries(driver, cpuQueries, poolSize),
      ({ user, system }) => ({ user: user / cpuQueries, total: (user + system) / cpuQueries }),
    );
    const user = Object.fromEntries(Object.entries(cpu).map(([name, values]) => [name, values.map((v) => v.user)]));
    console.log(
      `  ${driver.name}: (b) real server, user CPU µs/query at ${poolSize} in flight, median of ${cpuRounds} rounds ` +
        `(min-max); user + system: ${Object.entries(cpu)
          .map(([name, values]) => `${name} ${median(values.map((v) => v.total)).toFixed(1)}`)
          .join(', ')}`,
    );
    printPerQuery(user, 'µs', 2);

    // (c) Queries/s at 50 in flight: most queries wait for a connection another request releases.
    const rate = await alternateRounds(
      variants,
      loadRounds,
      queries(driver, settleQueries, handOffInFlight),
      queries(driver, loadQueries, handOffInFlight),
      ({ seconds }) => loadQueries / seconds,
    );
    console.log(
      `  ${driver.name}: (c) real server, queries/s at ${handOffInFlight} in flight, median of ${loadRounds} rounds (min-max)`,
    );
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
    verdict(
      `    budget: ${driver.name}, guard >= 0.97x none: ${ratio >= 0.97 ? 'met' : 'OVER BUDGET'} (${ratio.toFixed(3)}x)`,
    );
    withinBudget = withinBudget && ratio >= 0.97;
    await driver.close();
  }
  return withinBudget;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!(await runDrivers())) process.exitCode = 1;
}

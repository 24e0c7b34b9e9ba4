// The drivers' figures behind choices that stay (benchmarks/README.md), counted as drivers.bench.mjs counts: what
// any subscriber to mysql2's TracingChannels makes it do (@ambient/diagnostics' `drivers` option subscribes), the
// guard's opt-in query log, mysql2's guard without its module (its channels alone), and the hand-off where queries
// wait for a connection (50 in flight on a pool of 10).
//   node benchmarks/lab/drivers.mjs
import { tracingChannel } from 'node:diagnostics_channel';
import { fileURLToPath } from 'node:url';
import { loop } from '../drivers.bench.mjs';
import { fixed, instructions, printTable, twoAtATime } from '../harness.mjs';

const file = fileURLToPath(import.meta.url);
const queries = 2_000;

/** What each lab variant installs on top of drivers.bench.mjs's `none`. */
const installs = {
  none: () => undefined,
  'no-op subscriber': () => {
    const handlers = { start() {}, end() {}, asyncStart() {}, asyncEnd() {}, error() {} };
    for (const name of ['mysql2:query', 'mysql2:execute', 'mysql2:pool:connect'])
      tracingChannel(name).subscribe(handlers);
  },
  'diagnostics on': async () => (await import('@ambient/diagnostics')).enableDiagnostics({ warnings: false }),
  guard: async (module, driver) =>
    (await import('@ambient/drivers-context')).guardDrivers(driver === 'pg' ? { pg: module } : { mysql2: module }),
  'guard, channels alone': async () => (await import('@ambient/drivers-context')).guardDrivers(),
  'guard + onQuery': async (module, driver) =>
    (await import('@ambient/drivers-context')).guardDrivers({
      [driver === 'pg' ? 'pg' : 'mysql2']: module,
      onQuery: () => undefined,
    }),
};
const runs = [
  ['mysql2', 'none', 10],
  ['mysql2', 'no-op subscriber', 10],
  ['mysql2', 'diagnostics on', 10],
  ['mysql2', 'guard', 10],
  ['mysql2', 'guard, channels alone', 10],
  ['mysql2', 'guard + onQuery', 10],
  ['pg', 'none', 10],
  ['pg', 'guard', 10],
  ['pg', 'guard + onQuery', 10],
  ['pg', 'none', 50],
  ['pg', 'guard', 50],
];

if (process.argv[1] === file && process.argv[2] === 'loop') {
  const [driver, variant, inFlight] = process.argv.slice(3);
  await loop(driver, 'none', (module) => installs[variant](module, driver), Number(inFlight));
} else {
  const counts = await twoAtATime(runs, ([driver, variant, inFlight]) =>
    instructions(file, ['loop', driver, variant, String(inFlight)], {
      warmUp: (child) => child.run(40_000),
      count: (child) => child.run(queries),
      units: queries,
    }),
  );
  printTable(`callback pool.query, Node ${process.version}: instructions a query`, [
    ['', 'in flight', 'instructions', 'over none'],
    ...runs.map(([driver, variant, inFlight], i) => {
      const none = counts[runs.findIndex(([d, v, f]) => d === driver && v === 'none' && f === inFlight)].perUnit;
      return [`${driver} ${variant}`, inFlight, fixed(counts[i].perUnit), fixed(counts[i].perUnit - none)];
    }),
  ]);
}

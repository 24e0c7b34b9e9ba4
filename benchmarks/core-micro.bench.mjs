// @ambient/core's two primitives against the AsyncLocalStorage they sit on: Variable#get against getStore() and
// Variable#run against run(), on the very instance Ambient uses (so Node's own code is in one JIT state for both).
// No budget on the ratios themselves; the check keeps them from regressing: a ratio worse than the committed one
// for this Node line (core-micro.baseline.json) by more than this run's own A/A spread fails. The A/A is a second
// getStore()/run() loop, identical to the first: how far its ratio strays from 1, or a ratio moves between the
// run's fresh processes, is what this machine does not resolve. Medians of 9 alternating rounds of about 20 ms a loop in each of 5 fresh processes; BENCH_UPDATE_BASELINE=1 rewrites the
// baseline with this run's ratios.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { budget, freshProcesses, median, printTable } from './harness.mjs';

const processes = 5;
const rounds = 9;
const baselineFile = new URL('core-micro.baseline.json', import.meta.url);
const line = `v${process.versions.node.split('.')[0]}`;

/** The child: ns an operation of each loop, the median of alternating rounds. */
async function measure() {
  const { Variable } = await import('@ambient/core');
  const storage = globalThis[Symbol.for('@ambient/core.registry.v1')].storage;
  const variable = new Variable({ name: 'bench' });
  const noop = () => 1;
  let sink;
  const loops = {
    getStore: (n) =>
      variable.run('r', () => {
        for (let i = 0; i < n; i++) sink = storage.getStore();
      }),
    'getStore (A/A)': (n) =>
      variable.run('r', () => {
        for (let i = 0; i < n; i++) sink = storage.getStore();
      }),
    'Variable#get': (n) =>
      variable.run('r', () => {
        for (let i = 0; i < n; i++) sink = variable.get();
      }),
    run: (n) => {
      for (let i = 0; i < n; i++) sink = storage.run(i, noop);
    },
    'run (A/A)': (n) => {
      for (let i = 0; i < n; i++) sink = storage.run(i, noop);
    },
    'Variable#run': (n) => {
      for (let i = 0; i < n; i++) sink = variable.run(i, noop);
    },
  };
  // Each loop sized to take about 20 ms: a run on AsyncContextFrame costs 20 times a run on async_hooks.
  const sizes = {};
  for (const [name, loop] of Object.entries(loops)) {
    const start = process.hrtime.bigint();
    loop(200_000);
    sizes[name] = Math.ceil((20e6 / Number(process.hrtime.bigint() - start)) * 200_000);
  }
  const ns = Object.fromEntries(Object.keys(loops).map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const [name, loop] of Object.entries(loops)) {
      const start = process.hrtime.bigint();
      loop(sizes[name]);
      ns[name].push(Number(process.hrtime.bigint() - start) / sizes[name]);
    }
  }
  if (sink === Symbol.for('never')) console.error(sink);
  process.stdout.write(JSON.stringify(Object.fromEntries(Object.entries(ns).map(([name, v]) => [name, median(v)]))));
}

export async function run() {
  const results = freshProcesses(fileURLToPath(import.meta.url), [], processes);
  const ns = (name) => median(results.map((result) => result[name]));
  const ratios = {
    'Variable#get': ns('Variable#get') / ns('getStore'),
    'Variable#run': ns('Variable#run') / ns('run'),
  };
  // The run's own spread: the larger of how far the A/A pair's ratio strays from 1 in any process, and half the
  // range of each ratio over the processes (where the JIT lands in a fresh process moves a ratio as much as a
  // run on another day does).
  const aa = results.flatMap((r) => [r['getStore (A/A)'] / r.getStore, r['run (A/A)'] / r.run]);
  const halfRange = (name, raw) => {
    const values = results.map((r) => r[name] / r[raw]);
    return (Math.max(...values) - Math.min(...values)) / 2 / median(values);
  };
  const spread = Math.max(
    ...aa.map((ratio) => Math.abs(ratio - 1)),
    halfRange('Variable#get', 'getStore'),
    halfRange('Variable#run', 'run'),
  );
  const baselines = JSON.parse(readFileSync(baselineFile, 'utf8'));
  printTable(`core, Node ${process.version}: ns an operation, medians of ${processes} processes x ${rounds} rounds`, [
    ['', 'ns', 'AsyncLocalStorage ns', 'ratio', `baseline ${line}`],
    ...Object.entries(ratios).map(([name, ratio]) => [
      name,
      ns(name).toFixed(2),
      ns(name === 'Variable#get' ? 'getStore' : 'run').toFixed(2),
      `${ratio.toFixed(3)}x`,
      baselines[line]?.[name]?.toFixed(3) ?? 'none',
    ]),
  ]);
  console.log(`  A/A spread: ${(spread * 100).toFixed(1)}%`);
  for (const [name, ratio] of Object.entries(ratios)) {
    const baseline = baselines[line]?.[name];
    if (baseline === undefined) console.log(`  ${name}: no baseline for ${line} (BENCH_UPDATE_BASELINE=1 writes one)`);
    else {
      const limit = baseline * (1 + spread);
      budget(
        `core: ${name} ${ratio.toFixed(3)}x AsyncLocalStorage's time (baseline ${baseline.toFixed(3)}x; <= ${limit.toFixed(3)}x)`,
        ratio <= limit,
      );
    }
  }
  if (process.env.BENCH_UPDATE_BASELINE === '1') {
    const rounded = Object.fromEntries(Object.entries(ratios).map(([name, ratio]) => [name, Number(ratio.toFixed(3))]));
    writeFileSync(baselineFile, `${JSON.stringify({ ...baselines, [line]: rounded }, null, 2)}\n`);
    console.log(`  baseline for ${line} rewritten`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === 'measure') await measure();
else if (process.argv[1] === fileURLToPath(import.meta.url)) await run();

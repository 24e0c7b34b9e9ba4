// Cost of one async hop (`await`) inside a scope holding 1 or 10 values, Ambient against the peers' design of
// one AsyncLocalStorage per value. Each variant runs in a fresh child process: on Node 20 an enabled
// AsyncLocalStorage taxes every later async operation of the process, so variants must not share one.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { median, printTable } from '../harness.mjs';

const awaitsPerSample = 1_000_000;

async function child(variant) {
  const { AsyncLocalStorage } = await import('node:async_hooks');
  const { Variable, createContext } = await import('@ambient/core');
  const hop = async (n) => {
    for (let i = 0; i < n; i++) await null;
  };
  const measure = async () => {
    await hop(100_000);
    const start = process.hrtime.bigint();
    await hop(awaitsPerSample);
    return Number(process.hrtime.bigint() - start) / awaitsPerSample;
  };
  const nest = (enter, count, body) => (count === 0 ? body() : enter(count - 1, () => nest(enter, count - 1, body)));
  let ns;
  if (variant === 'none') ns = await measure();
  else if (variant.startsWith('ambient')) {
    const count = Number(variant.split('-')[1]);
    const values = Array.from({ length: count }, (_, i) => (i % 2 === 0 ? new Variable() : createContext()));
    ns = await nest(
      (i, fn) => (values[i] instanceof Variable ? values[i].run(i, fn) : values[i].run({ i }, fn)),
      count,
      measure,
    );
  } else {
    const count = Number(variant.split('-')[1]);
    const storages = Array.from({ length: count }, () => new AsyncLocalStorage());
    ns = await nest((i, fn) => storages[i].run({ i }, fn), count, measure);
  }
  process.stdout.write(String(ns));
}

function runAsyncHop() {
  const variants = ['none', 'ambient-1', 'ambient-10', 'als-1', 'als-10'];
  const rounds = 7;
  const samples = Object.fromEntries(variants.map((variant) => [variant, []]));
  for (let round = 0; round < rounds; round++) {
    for (const variant of variants) {
      const result = spawnSync(process.execPath, [fileURLToPath(import.meta.url), variant], { encoding: 'utf8' });
      if (result.status !== 0) throw new Error(`async-hop ${variant} failed: ${result.stderr}`);
      samples[variant].push(Number(result.stdout));
    }
  }
  const ns = Object.fromEntries(variants.map((variant) => [variant, median(samples[variant])]));
  printTable(`one await, Node ${process.version}: ns, medians of ${rounds} alternating child processes`, [
    ['', 'ns an await', 'ratio'],
    ['no context', ns.none.toFixed(1), ''],
    [
      'Ambient, 1 value',
      ns['ambient-1'].toFixed(1),
      `${(ns['ambient-1'] / ns['als-1']).toFixed(2)}x 1 AsyncLocalStorage`,
    ],
    [
      'Ambient, 10 values',
      ns['ambient-10'].toFixed(1),
      `${(ns['ambient-10'] / ns['als-10']).toFixed(2)}x 10 AsyncLocalStorages`,
    ],
    ['1 AsyncLocalStorage', ns['als-1'].toFixed(1), ''],
    ['10 AsyncLocalStorages', ns['als-10'].toFixed(1), `${(ns['als-10'] / ns['als-1']).toFixed(2)}x 1`],
  ]);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv[2] === undefined) runAsyncHop();
  else await child(process.argv[2]);
}

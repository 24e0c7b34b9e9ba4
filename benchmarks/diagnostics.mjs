// What @ambient/diagnostics costs (issue #17). Budgets: switched off, nothing measurable (in-process per-request
// cost unchanged within noise, in ns); switched on, the seed route on express keeps at least 0.85x the req/s it
// has with them off, on Node 24.
//   (a) In-process, on real IncomingMessage/ServerResponse objects (as http-seed/scope-cost.mjs): what opening
//       a request's scope costs with diagnostics off and on (the probe's requestOpened: a close listener, a
//       res.end wrapper, a WeakMap entry), and a requestContext read that finds no scope, off and on while no
//       request is open (the lost-context check's fast path). Medians of alternating rounds in 3 fresh processes.
//   (b) Load: the seed route (GET /users/:id) on express 5 with Ambient, diagnostics off and on (their defaults),
//       in alternating 1-second bursts of autocannon at 50 connections, 15 rounds over 3 sessions of fresh server
//       processes (benchmarks/load.mjs); the median per-round ratio and its interquartile range.
//
//   node benchmarks/diagnostics.mjs      BENCH_ONLY=diagnostics node benchmarks/run.mjs
import { fileURLToPath } from 'node:url';
import { alternate, measureInFreshProcesses, median, requestExchanges } from './harness.mjs';
import { measureLoad, printLoadTable, ratioBudget, ratios } from './load.mjs';

const rounds = Number(process.env.BENCH_ROUNDS ?? 15);
const serverFile = fileURLToPath(new URL('frameworks/server.mjs', import.meta.url));
const burst = { path: '/users/42', connections: 50, duration: 1 };
const budget = 0.85;

async function measureInProcess() {
  const { requestContext } = await import('@ambient/core');
  const { createRequestPolicy, runInRequestScope } = await import('@ambient/http-context/adapter');
  const { enableDiagnostics } = await import('@ambient/diagnostics');
  const policy = createRequestPolicy({}, 'benchmark');
  const newExchange = requestExchanges();
  const noop = () => undefined;
  let sink;
  let diagnostics;
  const off = () => diagnostics?.disable();
  const on = () => (diagnostics = enableDiagnostics({ warnings: false }));
  const scope = (n) => {
    for (let i = 0; i < n; i++) {
      const [req, res] = newExchange();
      sink = runInRequestScope(req, res, policy, noop);
    }
  };
  const miss = (n) => {
    for (let i = 0; i < n; i++) sink = requestContext.get('requestId');
  };
  const ns = alternate(
    {
      scopeOff: (n) => (off(), scope(n)),
      scopeOn: (n) => (on(), scope(n), off()),
      missOff: (n) => (off(), miss(n * 10)),
      missOn: (n) => (on(), miss(n * 10), off()),
    },
    { rounds: 9, iterations: 50_000 },
  );
  if (sink === Symbol.for('never')) console.error(sink);
  return { ...ns, missOff: ns.missOff / 10, missOn: ns.missOn / 10 };
}

export async function runDiagnostics() {
  const samples = measureInFreshProcesses(fileURLToPath(import.meta.url), [], 3);
  const of = (key) => median(samples.map((sample) => sample[key]));
  console.log(
    `\n@ambient/diagnostics, Node ${process.version}: (a) in-process ns per request on real request objects, ` +
      'medians of 3 fresh processes × 9 alternating rounds',
  );
  console.log(`  open a request's scope: off ${of('scopeOff').toFixed(0)} ns, on ${of('scopeOn').toFixed(0)} ns`);
  console.log(
    `  a requestContext read with no scope (no request open): off ${of('missOff').toFixed(1)} ns, ` +
      `on ${of('missOn').toFixed(1)} ns`,
  );

  const variants = ['ambient', 'ambient-diagnostics'];
  const {
    samples: load,
    cpuSamples,
    fixedRate,
  } = await measureLoad(serverFile, (variant) => ['express', variant], variants, rounds, burst);
  console.log(
    `  (b) express 5, GET /users/:id: ${rounds} alternating rounds of ${burst.duration}-second bursts at ` +
      `${burst.connections} connections, CPU per request at ${fixedRate} req/s; per-round ratios to diagnostics off`,
  );
  printLoadTable(
    variants,
    { ambient: 'Ambient, diagnostics off', 'ambient-diagnostics': 'Ambient, diagnostics on' },
    load,
    cpuSamples,
    'ambient',
  );
  const ratio = ratios(load, 'ambient-diagnostics', 'rps', 'ambient');
  return ratioBudget('diagnostics on vs off, req/s', ratio, budget);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv[2] === 'measure') process.stdout.write(JSON.stringify(await measureInProcess()));
  else if (!(await runDiagnostics())) process.exitCode = 1;
}

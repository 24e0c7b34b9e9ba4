// Shared by the HTTP benchmarks: each variant is a server in its own forked process on 127.0.0.1, loaded by
// autocannon from this process in short bursts that alternate among the live servers, round by round, so
// that slow drift of this shared machine cancels out of each round's ratios.
//
// The child side is serveForBenchmark(): it reports its port, and its own CPU time and requests served
// between 'start' and 'stop'.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import autocannon from 'autocannon';
import { median, quantile, verdict as recordVerdict } from './harness.mjs';

/**
 * Forks `file` with `args`; resolves once the server in it listens. `variant` names it in the samples.
 * `execArgv` adds Node flags to the child; with `captureOutput`, its stdout is kept for `output()` instead of
 * printed (how allocations.mjs reads `--trace-gc-nvp`), with `captureErrors` its stderr for `errors()`.
 * `execPath` runs the child through another program that starts `node` with what follows it (valgrind, for
 * frameworks/instructions.mjs).
 */
export async function startServer(
  file,
  args,
  variant,
  { execArgv = [], captureOutput = false, captureErrors = false, execPath = process.execPath } = {},
) {
  const stdio = ['ignore', captureOutput ? 'pipe' : 'inherit', captureErrors ? 'pipe' : 'inherit', 'ipc'];
  const child = fork(file, args, { execArgv, execPath, stdio });
  let output = '';
  let errors = '';
  if (captureOutput) child.stdout.on('data', (chunk) => (output += chunk));
  if (captureErrors) child.stderr.on('data', (chunk) => (errors += chunk));
  // Never rejects: once(child, 'close') would, on a spawn 'error', and nothing may be awaiting it yet.
  const closed = new Promise((resolve) => child.on('close', (code) => resolve(code)));
  const [{ port }] = await once(child, 'message');
  const url = `http://127.0.0.1:${port}`;
  return {
    variant,
    /** The child's process id: valgrind's, when `execPath` is valgrind (for callgrind_control). */
    pid: child.pid,
    /** What the child has written to stdout so far (with `captureOutput`). */
    output: () => output,
    /** What the child has written to stderr so far (with `captureErrors`). */
    errors: () => errors,
    /**
     * Asks the child to exit (serveForBenchmark's 'exit'); resolves with its exit code once it has and its output
     * has all arrived ('close', not 'exit': valgrind writes its summary just before it exits).
     */
    async exit() {
      child.send('exit');
      return closed;
    },
    /** Resolves once the child has exited and its output has all arrived, however it ended. */
    closed: () => closed.then(() => undefined),
    /** One burst of load; returns req/s and the server's CPU µs per request served during it. */
    async burst({ path = '/', connections = 50, duration = 2, ...options } = {}) {
      child.send('start');
      await once(child, 'message');
      const result = await autocannon({ url: url + path, connections, duration, ...options });
      child.send('stop');
      const [{ cpuMicros, served }] = await once(child, 'message');
      if (result.errors > 0 || result.non2xx > 0)
        throw new Error(`${variant}: ${result.errors} errors, ${result.non2xx} non-2xx responses`);
      return { rps: result.requests.average, cpuPerRequest: cpuMicros / served };
    },
    stop: () => child.kill(),
  };
}

/** `count` rounds of one burst per server, the order rotating each round; returns each round's samples by variant. */
export async function alternatingRounds(servers, count, options) {
  const all = [];
  for (let round = 0; round < count; round++) {
    const samples = {};
    const order = servers.map((_, i) => servers[(i + round) % servers.length]);
    for (const server of order) samples[server.variant] = await server.burst(options);
    all.push(samples);
  }
  return all;
}

/** The child side: listens on 127.0.0.1, then answers run.mjs's 'start'/'stop' with CPU time and requests served. */
export function serveForBenchmark(server) {
  let served = 0;
  let cpuAtStart;
  let servedAtStart;
  server.on('request', () => served++);
  process.on('message', (message) => {
    if (message === 'start') {
      cpuAtStart = process.cpuUsage();
      servedAtStart = served;
      process.send({ started: true });
    } else if (message === 'exit') {
      process.exit(0); // lets --cpu-prof write its profile
    } else if (message === 'stop') {
      const cpu = process.cpuUsage(cpuAtStart);
      process.send({ cpuMicros: cpu.user + cpu.system, served: served - servedAtStart });
    }
  });
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
}

/**
 * The whole measurement of one set of variants, in `sessions` sessions (BENCH_SESSIONS, default 3) that
 * split the `rounds` between them. Each session starts every server in a fresh process, warms it up, then runs
 * its share of alternating bursts at full load (req/s) and at a fixed rate, 60% of the slowest variant's
 * warm-up throughput, so that every server keeps up (CPU per request). Fresh processes because one process can
 * stay a few per cent fast or slow for its whole life (where the JIT and the allocator happened to land): with
 * one process per variant, that offset is in every round and no number of rounds averages it out.
 * Stops every server it started.
 */
export async function measureLoad(
  file,
  argsOf,
  variants,
  rounds,
  burst,
  sessions = Number(process.env.BENCH_SESSIONS ?? 3),
) {
  if (!Number.isInteger(sessions) || sessions < 1 || !Number.isInteger(rounds) || rounds < 1) {
    throw new Error(`measureLoad: BENCH_SESSIONS (${sessions}) and BENCH_ROUNDS (${rounds}) must be positive integers`);
  }
  sessions = Math.min(sessions, rounds);
  const samples = [];
  const cpuSamples = [];
  const fixedRates = [];
  for (let session = 0; session < sessions; session++) {
    const share = Math.ceil((rounds - samples.length) / (sessions - session));
    // Started in a rotating order, so that no variant is always the first process on the machine.
    const order = variants.map((_, i) => variants[(i + session) % variants.length]);
    const servers = [];
    try {
      for (const variant of order) servers.push(await startServer(file, argsOf(variant), variant));
      const warmUp = [];
      for (const server of servers) warmUp.push((await server.burst({ ...burst, duration: 3 })).rps); // not measured
      samples.push(...(await alternatingRounds(servers, share, burst)));
      const fixedRate = Math.round(Math.min(...warmUp) * 0.6);
      fixedRates.push(fixedRate);
      cpuSamples.push(...(await alternatingRounds(servers, share, { ...burst, overallRate: fixedRate })));
    } finally {
      for (const server of servers) server.stop();
    }
  }
  return {
    samples,
    cpuSamples,
    fixedRate: fixedRates.length === 1 ? `${fixedRates[0]}` : `${Math.min(...fixedRates)}-${Math.max(...fixedRates)}`,
  };
}

/** Each round's `metric` of `variant` over that of `over`, in the same round. */
export function ratios(rounds, variant, metric, over) {
  return rounds.map((round) => round[variant][metric] / round[over][metric]);
}

/** `q1-q3` of a list of ratios. */
export function spread(values) {
  return `${quantile(values, 0.25).toFixed(2)}-${quantile(values, 0.75).toFixed(2)}`;
}

/**
 * The budget line for per-round ratios that must reach `budget` (a median at least `budget`), saying when this
 * machine does not resolve it: the interquartile range reaches both sides of the budget.
 */
export function ratioBudget(text, values, budget) {
  const ok = median(values) >= budget;
  const resolved = quantile(values, 0.25) >= budget || quantile(values, 0.75) < budget;
  const verdict = ok ? `ok (>= ${budget.toFixed(2)}x)` : `OVER BUDGET (needs >= ${budget.toFixed(2)}x)`;
  recordVerdict(
    `budget check: ${text} ${formatRatio(values)}: ${verdict}${resolved ? '' : '; not resolved here, the IQR spans it'}`,
  );
  return ok;
}

/** `1.23x (IQR 1.10-1.30)`: a list of per-round ratios as printed in budget lines. */
export function formatRatio(values) {
  return `${median(values).toFixed(2)}x (IQR ${spread(values)})`;
}

/**
 * Prints one row a variant: median req/s (full-load rounds) and CPU µs per request (fixed-rate rounds), each
 * with the median and interquartile range of its per-round ratio to `baseline`.
 */
export function printLoadTable(variants, labels, samples, cpuSamples, baseline) {
  const label = (variant) => labels[variant] ?? variant;
  const width = Math.max(...variants.map((variant) => label(variant).length));
  console.log(
    [
      'variant'.padEnd(width),
      'req/s'.padStart(7),
      `vs ${baseline}`.padStart(8),
      'IQR'.padStart(11),
      'CPU µs/req'.padStart(11),
      `vs ${baseline}`.padStart(8),
      'IQR'.padStart(11),
    ].join('  '),
  );
  for (const variant of variants) {
    const rps = ratios(samples, variant, 'rps', baseline);
    const cpu = ratios(cpuSamples, variant, 'cpuPerRequest', baseline);
    console.log(
      [
        label(variant).padEnd(width),
        median(samples.map((round) => round[variant].rps))
          .toFixed(0)
          .padStart(7),
        `${median(rps).toFixed(2)}x`.padStart(8),
        spread(rps).padStart(11),
        median(cpuSamples.map((round) => round[variant].cpuPerRequest))
          .toFixed(1)
          .padStart(11),
        `${median(cpu).toFixed(2)}x`.padStart(8),
        spread(cpu).padStart(11),
      ].join('  '),
    );
  }
}

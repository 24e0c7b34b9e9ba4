// Shared by the benchmarks: alternate the variants round by round, take medians, print ratios.
import { execFile, spawnSync } from 'node:child_process';
import http from 'node:http';
import { Socket } from 'node:net';
import { promisify } from 'node:util';
import { inLanes } from '../scripts/lanes.mjs';

const verdicts = [];

/**
 * Prints one budget's verdict (with its figure and spread) and keeps it, so that `npm run bench` can print every
 * verdict of a Node line again in one table at its end.
 */
export function verdict(line) {
  console.log(line);
  verdicts.push(line.trim());
}

/** Every verdict printed so far, in order. */
export function verdictsSoFar() {
  return [...verdicts];
}

/** The q-quantile of a list of numbers, interpolating linearly between neighbours. */
export function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const low = Math.floor(position);
  return sorted[low] + (sorted[Math.ceil(position)] - sorted[low]) * (position - low);
}

export function median(values) {
  return quantile(values, 0.5);
}

/** Nanoseconds per operation of `loop(iterations)`, which must perform `iterations` operations. */
export function nsPerOp(loop, iterations) {
  const start = process.hrtime.bigint();
  loop(iterations);
  return Number(process.hrtime.bigint() - start) / iterations;
}

/** Runs each variant's loop once per round, alternating, and returns the median ns/op of each. */
export function alternate(variants, { rounds, iterations }) {
  const samples = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
  for (const loop of Object.values(variants)) loop(Math.min(iterations, 200_000)); // warm up every variant first
  for (let round = 0; round < rounds; round++) {
    for (const [name, loop] of Object.entries(variants)) samples[name].push(nsPerOp(loop, iterations));
  }
  return Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, median(values)]));
}

/** One row of a results table: ratio = ops/s of the candidate over ops/s of the baseline. */
export function row(label, baselineNs, candidateNs, budget) {
  const ratio = baselineNs / candidateNs;
  const verdict =
    budget === undefined ? '' : ratio >= budget ? `ok (budget >= ${budget}x)` : `OVER BUDGET (needs >= ${budget}x)`;
  return {
    label,
    baseline: baselineNs.toFixed(1),
    candidate: candidateNs.toFixed(1),
    ratio: `${ratio.toFixed(2)}x`,
    verdict,
    pass: budget === undefined || ratio >= budget,
  };
}

export function printTable(title, rows) {
  console.log(`\n${title}`);
  const headers = ['case', 'baseline ns/op', 'Ambient ns/op', 'ops/s ratio', ''];
  const cells = rows.map((r) => [r.label, r.baseline, r.candidate, r.ratio, r.verdict]);
  const widths = headers.map((header, i) => Math.max(header.length, ...cells.map((cell) => cell[i].length)));
  const line = (values) => values.map((value, i) => value.padEnd(widths[i])).join('  ');
  console.log(line(headers));
  for (const cell of cells) console.log(line(cell));
  for (const r of rows.filter((r) => r.verdict !== '')) verdicts.push(`${r.label}: ${r.ratio} ${r.verdict}`);
}

/**
 * Runs `node file measure ...args` in `count` fresh processes, one after another, and returns what each wrote
 * to stdout, parsed as JSON. At nanoseconds per operation, JIT decisions vary between processes: a median
 * across processes is steadier than any one process.
 */
export function measureInFreshProcesses(file, args, count) {
  const results = [];
  for (let i = 0; i < count; i++) {
    const child = spawnSync(process.execPath, [file, 'measure', ...args], { encoding: 'utf8' });
    if (child.status !== 0) throw new Error(`${file} ${args.join(' ')} failed: ${child.stderr}`);
    results.push(JSON.parse(child.stdout));
  }
  return results;
}

/**
 * A maker of real request/response pairs on one unconnected socket, as Node's server makes them, for measuring
 * what an adapter does per request in-process: `[req, res]` each call. `request` holds what a server's parser
 * would also have set on each request (method, url, HTTP version), for code that routes it.
 */
export function requestExchanges(request) {
  const socket = new Socket();
  return () => {
    const req = new http.IncomingMessage(socket);
    req.headers = { host: '127.0.0.1' };
    if (request !== undefined) Object.assign(req, request);
    return [req, new http.ServerResponse(req)];
  };
}

/** Is valgrind installed? The instruction-count benchmarks skip without it. */
export function hasValgrind() {
  return spawnSync('valgrind', ['--version']).status === 0;
}

/**
 * The machine instructions valgrind's callgrind counted for one process, `node ...args` on this Node, in all its
 * threads; undefined if valgrind printed no count. Rejects if the process fails or runs past `timeoutMs`. The
 * count does not depend on what else the machine is doing, where time does; the JIT (and I/O batching, for a
 * process that talks to a server) still moves it from one process to the next, so callers compare several.
 */
export async function instructionsOf(args, timeoutMs = 20 * 60_000) {
  const { stderr } = await promisify(execFile)('valgrind', [...callgrind, process.execPath, ...args], {
    maxBuffer: 1 << 24,
    timeout: timeoutMs,
  });
  return collectedInstructions(stderr);
}

/** valgrind's arguments for a count of every instruction and nothing written to disk; `node` and its own follow. */
const callgrind = ['--tool=callgrind', '--callgrind-out-file=/dev/null'];

/** The total callgrind's summary on stderr reports, or undefined if there is none. */
function collectedInstructions(stderr) {
  const match = /Collected : (\d+)/.exec(stderr);
  return match === null ? undefined : Number(match[1]);
}

/**
 * Instructions per unit of work for each of `cases`: each case runs in processes of its own at the two sizes of
 * `counts` (units after the same warm-up), and the difference of the two totals over the difference of the sizes
 * is one unit's count, without the process's start-up and warm-up; `repeats` such pairs of processes per case,
 * two processes at a time (a count does not depend on what else runs). `argsOf(name, count)` gives a process's
 * `node` arguments (or a promise of them); a process that needs driving while valgrind counts (a server under
 * load) is counted by `measure(name, count)` instead, a promise of its total. Returns, for each case, its
 * per-unit figures, one per pair that valgrind completed; rejects, starting nothing more, when a process fails.
 */
export async function instructionsPerUnit(
  cases,
  { counts, repeats, argsOf, measure = async (name, count) => instructionsOf(await argsOf(name, count)) },
) {
  const runs = [];
  for (let repeat = 0; repeat < repeats; repeat++) {
    for (const name of cases) for (const count of counts) runs.push({ name, count, repeat });
  }
  const totals = new Map();
  await twoAtATime(runs, async (run) =>
    totals.set(`${run.name} ${run.count} ${run.repeat}`, await measure(run.name, run.count)),
  );
  const perUnit = (name) =>
    Array.from(
      { length: repeats },
      (_, repeat) =>
        (totals.get(`${name} ${counts[1]} ${repeat}`) - totals.get(`${name} ${counts[0]} ${repeat}`)) /
        (counts[1] - counts[0]),
    ).filter(Number.isFinite);
  return Object.fromEntries(cases.map((name) => [name, perUnit(name)]));
}

/**
 * `run(job)` for each of `jobs`, in order, two at a time (an instruction count does not depend on what else runs).
 * When one fails, no more start: one failed process fails the benchmark. Rejects with its error once the other
 * lane's job has ended too, so that no process is left running behind it.
 */
export async function twoAtATime(jobs, run) {
  const outcomes = await Promise.allSettled(
    inLanes(
      jobs.map((job) => () => run(job)),
      2,
      { stopAfterFailure: true },
    ),
  );
  // The first failure in order is one that ran: those never started come after every one that did.
  const failed = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
}

/** `min-max` of a list of numbers, rounded. */
export function range(values) {
  return `${Math.min(...values).toFixed(0)}-${Math.max(...values).toFixed(0)}`;
}

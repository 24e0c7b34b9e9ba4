// What every benchmark and lab script shares: statistics, budget verdicts, child processes (servers driven by
// autocannon, loops driven by messages), alternating load rounds, and instruction counts under callgrind.
import { execFile, fork, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** The q-quantile of `values`, interpolating between neighbours. */
export function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  return sorted[low] + (sorted[Math.ceil(at)] - sorted[low]) * (at - low);
}
export const median = (values) => quantile(values, 0.5);
/** `q1 to q3` of `values`. */
export const iqr = (values, digits = 0) =>
  `${quantile(values, 0.25).toFixed(digits)} to ${quantile(values, 0.75).toFixed(digits)}`;
export const fixed = (value, digits = 0) => value.toLocaleString('en-US', { maximumFractionDigits: digits });

const verdicts = [];

/**
 * A budget's verdict: printed now, and again in run.mjs's list at the end, which exits 1 if any is missed.
 * `unresolved` says why the figures cannot decide it here (the verdict still counts).
 */
export function budget(text, ok, unresolved) {
  const line = `${ok ? 'ok    ' : 'MISSED'} ${text}${unresolved ? `; not resolved here: ${unresolved}` : ''}`;
  console.log(`  budget: ${line}`);
  verdicts.push({ line, ok });
  return ok;
}
export const verdictsSoFar = () => [...verdicts];

/**
 * Runs `node file measure ...args` in `count` fresh processes, one after another; what each printed, as JSON.
 * At nanoseconds an operation, where the JIT lands differs from one process to the next.
 */
export function freshProcesses(file, args, count, execArgv = []) {
  return Array.from({ length: count }, () => {
    const child = spawnSync(process.execPath, [...execArgv, file, 'measure', ...args], { encoding: 'utf8' });
    if (child.status !== 0) throw new Error(`${file} ${args.join(' ')} failed: ${child.stderr}`);
    return JSON.parse(child.stdout);
  });
}

/**
 * CPU ns a unit of each variant's work, round by round: `units` maps each variant to one unit of it (awaited).
 * Half a round of each first, to warm up; then `rounds` rounds of `count` units, the order rotating so that no
 * variant always follows the same one (and collects its garbage). Returns `{ variant: [ns a unit, a round each] }`.
 */
export async function cpuRounds(units, { count, rounds }) {
  const timed = async (one, times) => {
    const cpu = process.cpuUsage();
    for (let i = 0; i < times; i++) await one();
    const { user, system } = process.cpuUsage(cpu);
    return ((user + system) * 1000) / times;
  };
  const ns = Object.fromEntries(Object.keys(units).map((name) => [name, []]));
  for (const one of Object.values(units)) await timed(one, count / 2);
  const order = Object.keys(units);
  for (let round = 0; round < rounds; round++) {
    for (let turn = 0; turn < order.length; turn++) {
      const name = order[(round + turn) % order.length];
      ns[name].push(await timed(units[name], count));
    }
  }
  return ns;
}

/** Runs `job` for each of `items`, two at a time (instruction counts do not depend on what else runs). */
export async function twoAtATime(items, job) {
  const results = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await job(items[i]);
    }
  };
  await Promise.all([lane(), lane()]);
  return results;
}

/**
 * Forks `file` (a server that calls serveForBenchmark, or a loop that calls serveLoop) and resolves once it is
 * ready. `execPath`/`execArgv` run it through valgrind; its stderr is kept for the error if it fails.
 */
export async function startChild(file, args, { execPath = process.execPath, execArgv = [] } = {}) {
  const child = fork(file, args, { execPath, execArgv, stdio: ['ignore', 'inherit', 'pipe', 'ipc'] });
  let errors = '';
  child.stderr.on('data', (chunk) => (errors = (errors + chunk).slice(-8000)));
  const closed = new Promise((resolve) => child.on('close', resolve));
  const reply = () =>
    new Promise((resolve, reject) => {
      const onClose = (code) => reject(new Error(`${file} ${args.join(' ')} exited ${code}:\n${errors}`));
      child.once('close', onClose);
      child.once('message', (message) => {
        child.off('close', onClose);
        resolve(message);
      });
    });
  const { port } = await reply();
  return {
    pid: child.pid,
    port,
    /** A loop child: runs `count` units of its work. */
    run: async (count) => (child.send({ run: count }), reply()),
    /** A server child: one autocannon burst; req/s, the server's CPU µs and heap bytes a request served in it. */
    async burst({ path = '/users/42', connections = 50, ...options }) {
      child.send('start');
      await reply();
      const { default: autocannon } = await import('autocannon'); // not loaded into the servers
      const result = await autocannon({ url: `http://127.0.0.1:${port}${path}`, connections, ...options });
      child.send('stop');
      const { cpuMicros, served, allocated } = await reply();
      if (result.errors > 0 || result.non2xx > 0) throw new Error(`${args.join(' ')}: requests failed`);
      return {
        rps: result.requests.average,
        cpuPerRequest: cpuMicros / served,
        bytesPerRequest: (allocated ?? NaN) / served,
      };
    },
    stop: async () => (child.kill(), closed),
  };
}

/** The server side of startChild: listens on 127.0.0.1 and reports its CPU time between 'start' and 'stop'. */
export function serveForBenchmark(server) {
  let served = 0;
  let lastCollection = 0;
  let before;
  server.on('request', () => served++);
  // Under --expose-gc, a burst starts from a full collection and reports the heap's growth: with a young
  // generation larger than the burst allocates (and no collection in it), that is every byte allocated.
  if (globalThis.gc) {
    new PerformanceObserver(
      (list) => (lastCollection = Math.max(...list.getEntries().map((e) => e.startTime))),
    ).observe({ type: 'gc' });
  }
  process.on('message', (message) => {
    if (message === 'start') {
      globalThis.gc?.();
      before = { cpu: process.cpuUsage(), served, at: performance.now(), heap: getHeapStatistics().used_heap_size };
      process.send('started');
    } else if (message === 'stop') {
      const { user, system } = process.cpuUsage(before.cpu);
      const heap = getHeapStatistics().used_heap_size;
      const result = { cpuMicros: user + system, served: served - before.served };
      // A collection's entry arrives a little after it: one in the burst makes the heap's growth meaningless.
      setTimeout(
        () => process.send({ ...result, allocated: lastCollection > before.at ? null : heap - before.heap }),
        20,
      );
    }
  });
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
}

/** The loop side of startChild: `work(count)` (sync or async) each time the parent asks. */
export function serveLoop(work) {
  process.on('message', async ({ run }) => {
    await work(run);
    process.send('done');
  });
  process.send({ ready: true });
}

/**
 * Rounds of one burst per server, the order rotating each round, at full load (req/s) then at a fixed rate of
 * 60% of the slowest server's warm-up (CPU per request, batching alike); each round's samples by variant.
 */
export async function loadRounds(servers, rounds, burst) {
  const warmUp = [];
  for (const server of servers) warmUp.push((await server.burst({ ...burst, duration: 2 })).rps);
  const overallRate = Math.round(Math.min(...warmUp) * 0.6);
  const samples = [];
  for (const options of [burst, { ...burst, overallRate }]) {
    for (let round = 0; round < rounds; round++) {
      const sample = { rate: options.overallRate };
      for (let i = 0; i < servers.length; i++) {
        const server = servers[(i + round) % servers.length];
        sample[server.variant] = await server.burst(options);
      }
      samples.push(sample);
    }
  }
  return { full: samples.filter((s) => !s.rate), fixed: samples.filter((s) => s.rate), overallRate };
}

export const hasCallgrind = () =>
  spawnSync('valgrind', ['--version']).status === 0 && spawnSync('callgrind_control', ['--version']).status === 0;

/**
 * V8 as counted: `--predictable` runs its compilers and collector on the main thread at points that do not depend
 * on timing, and `--predictable-gc-schedule` fixes how the heap grows (else it follows measured speeds, and a full
 * stack's count moved by 3% from one process to the next), so a count repeats; tiering up after a tenth of the
 * calls reaches steady code in a few thousand requests instead of 25,000 (lab/tiering.mjs compares the two).
 */
export const countedV8 = [
  '--predictable',
  '--predictable-gc-schedule',
  '--invocation-count-for-turbofan=300',
  '--invocation-count-for-maglev=40',
  '--minimum-invocations-after-ic-update=50',
];

/**
 * V8's compilers as JavaScript enters them (Maglev, TurboFan, lazy and on-stack compiles): their instructions
 * are left out of a count and printed beside it.
 */
const v8Compilers =
  /\bv8::internal::Runtime_(?:OptimizeTurbofanEager|OptimizeMaglevEager|CompileLazy|CompileOptimizedOSR\w*)\(/;

/**
 * V8's major collector: its incremental marking steps and the mark-compact pause (neither runs inside the other).
 * One cycle costs a few hundred million instructions and starts when the old generation reaches its limit, so it
 * falls in one variant's window and not in another's (a mysql2 guard's 2,000 queries counted 137,000 instructions
 * a query with one, 42,000 without). Left out of a count and returned beside it (`collecting`); the young
 * generation's scavenges stay in.
 */
const v8MajorCollector = /\bv8::internal::(?:IncrementalMarking::Step|Heap::MarkCompact)\(/;

/**
 * Instructions per unit of `file`'s work: the child starts under callgrind with instrumentation off, `warmUp(child)`
 * runs uninstrumented (a few times faster), then `count(child)` runs `units` units with it on and the part is
 * dumped. Returns instructions a unit without V8's compilers and major collector (`perUnit`), what those took
 * (`compiling`, `collecting`), and where
 * the profile by function is (`profile`, in `directory`, which the caller removes), of process `pid`.
 */
export async function countInstructions(file, args, { warmUp, count, units, nodeFlags = countedV8 }) {
  const directory = await mkdtemp(join(tmpdir(), 'ambient-bench-'));
  const profile = join(directory, 'callgrind.out');
  let child;
  try {
    child = await startChild(file, args, {
      execPath: 'valgrind',
      execArgv: [
        '--tool=callgrind',
        `--callgrind-out-file=${profile}`,
        '--dump-instr=no',
        '--instr-atstart=no',
        process.execPath,
        ...nodeFlags,
      ],
    });
    await warmUp(child);
    await promisify(execFile)('callgrind_control', ['--instr=on', String(child.pid)]);
    await count(child);
    await promisify(execFile)('callgrind_control', ['--dump', String(child.pid)]);
    const { total, compiling, collecting } = await partInstructions(`${profile}.1`);
    return {
      perUnit: (total - compiling - collecting) / units,
      compiling: compiling / units,
      collecting: collecting / units,
      profile: `${profile}.1`,
      directory,
      pid: child.pid,
    };
  } catch (error) {
    await rm(directory, { recursive: true, force: true });
    throw error;
  } finally {
    await child?.stop();
  }
}

/** countInstructions, its profile removed. */
export async function instructions(file, args, options) {
  const { directory, profile: _profile, pid: _pid, ...figures } = await countInstructions(file, args, options);
  await rm(directory, { recursive: true, force: true });
  return figures;
}

/**
 * A callgrind profile's instruction total, and the inclusive cost of the calls into V8's compilers from outside
 * them. callgrind compresses names: "(12) name" the first time, "(12)" after.
 */
async function partInstructions(file) {
  const names = new Map();
  const nameOf = (spec) => {
    const [, id, name] = /^\((\d+)\)(?: (.*))?$/.exec(spec) ?? [];
    if (id === undefined) return spec;
    if (name !== undefined) names.set(id, name);
    return names.get(id);
  };
  let total;
  let compiling = 0;
  let collecting = 0;
  let caller = '';
  let callee = '';
  let costNext = false;
  for (const line of (await readFile(file, 'utf8')).split('\n')) {
    if (costNext) {
      costNext = false;
      const cost = Number(line.split(' ')[1]);
      if (v8Compilers.test(callee) && !v8Compilers.test(caller)) compiling += cost;
      if (v8MajorCollector.test(callee) && !v8MajorCollector.test(caller)) collecting += cost;
    } else if (line.startsWith('fn=')) caller = nameOf(line.slice(3));
    else if (line.startsWith('cfn=')) callee = nameOf(line.slice(4));
    else if (line.startsWith('calls=')) costNext = true;
    else if (line.startsWith('summary:') || line.startsWith('totals:')) total = Number(line.split(' ')[1]);
  }
  if (total === undefined) throw new Error(`${file}: not a callgrind profile`);
  return { total, compiling, collecting };
}

/** Prints rows of cells as columns, the first left-aligned and the rest right-aligned, under `title`. */
export function printTable(title, rows) {
  console.log(`\n${title}`);
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => String(row[i]).length)));
  for (const row of rows) {
    console.log(
      `  ${row.map((cell, i) => (i === 0 ? String(cell).padEnd(widths[i]) : String(cell).padStart(widths[i]))).join('   ')}`,
    );
  }
}

/**
 * The in-process message parts' report (brokers, websocket): `processes` fresh runs of `file measure <name>`,
 * each `{ ns: { variant: [ns a message, one a round] } }` with the variants `none`, `hand-written`, `ambient` and
 * `none (A/A)` alternating; prints each variant over `none` and the A/A control, and judges, on Node 24 only,
 * Ambient's paired difference over the hand-written wrapper against `limitNs`, unless `decided` is false (the
 * caller decides by instructions, and the load figure is printed beside). Returns the children's reports.
 */
export function reportMessageCosts(file, name, { title, processes, rounds, limitNs, decided = true }) {
  const ns = {};
  const children = freshProcesses(file, [name], processes);
  for (const child of children) {
    for (const [variant, values] of Object.entries(child.ns)) (ns[variant] ??= []).push(...values);
  }
  const paired = (a, b) => ns[a].map((value, i) => value - ns[b][i]);
  printTable(
    `${title}, Node ${process.version}: CPU ns a message, median of ${processes} processes x ${rounds} rounds`,
    [
      ['', 'ns a message', 'over none (IQR)'],
      ...Object.keys(ns).map((variant) => {
        const over = paired(variant, 'none');
        return [variant, fixed(median(ns[variant])), `${fixed(median(over))} (${iqr(over)})`];
      }),
    ],
  );
  const control = paired('none (A/A)', 'none');
  console.log(`  A/A, none against itself: ${fixed(median(control))} ns a message (IQR ${iqr(control)})`);
  const resolved = (values, limit) => quantile(values, 0.25) > limit === quantile(values, 0.75) > limit;
  const over = paired('ambient', 'hand-written');
  const check = !decided
    ? (text) => console.log(`  (load, beside the instructions that decide) ${text}`)
    : process.version.startsWith('v24.')
      ? budget
      : (text) => console.log(`  (the budget is Node 24's) ${text}`);
  check(
    `${name}: Ambient ${fixed(median(over))} ns a message over the hand-written wrapper (IQR ${iqr(over)}; <= ${fixed(limitNs)})`,
    median(over) <= limitNs,
    !resolved(over, limitNs) && 'the IQR spans it',
  );
  return children;
}

// Issue #18's in-process budget: what Ambient's adapter adds to a request, over the hand-written
// AsyncLocalStorage middleware, as a share of the framework's CPU per request (budget: at most 2% on Node 24).
// Whole requests through each framework's real app (apps.mjs, the servers of the load runs) on real
// IncomingMessage/ServerResponse objects, in one process and without sockets: no kernel, no HTTP parser, no
// load generator sharing the two cores, so the figure repeats where req/s does not.
//
// A response ends in memory (it has no socket); its 'finish' and 'close' then fire from outside any request,
// as a server's socket fires them, so a listener an adapter bound still costs what it costs. Requests run 10 at
// a time, 20,000 a round, timed in CPU time (user and system, every thread: the collector's helpers too); the
// variants take turns, in an order that rotates each round so that no variant always collects the garbage of
// the same predecessor, 15 rounds in each of 3 fresh processes. No collection is forced between rounds: a full
// one makes the next round's young generation start empty, which no server's does.
//
// The denominator is the framework's CPU per request as a server: the hand-written variant's server
// (server.mjs) in a process of its own at full load (50 connections, as in run.mjs), its CPU time over the
// requests it served (5 rounds of 1 s, median). Full load batches the most work into each wake-up, so it is the
// lowest CPU per request a server shows, and the share the highest. The share of the in-process work alone
// (no HTTP parser, no socket) is printed beside it: an upper bound no server reaches.
//
//   node benchmarks/frameworks/in-process.mjs            every framework of BENCH_FRAMEWORKS
import { AsyncResource } from 'node:async_hooks';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { measureInFreshProcesses, median, quantile, requestExchanges, verdict } from '../harness.mjs';
import { startServer } from '../load.mjs';
import { frameworkServer } from './apps.mjs';
import { selectedFrameworks } from './variants.mjs';

const variants = ['bare', 'als', 'ambient'];
const processes = 3;
const rounds = 15;
const requestsPerRound = 20_000;
const inFlight = 10;
const shareBudget = 0.02;
const budgetLine = 'v24.';

const kEnded = Symbol('ended');

/** Makes ServerResponse#end, in this process only, report each request's end and fire what a socket fires. */
function endInMemory() {
  // Created at startup, outside any request: the context a server's socket events arrive in.
  const socketContext = new AsyncResource('benchmark-socket');
  const end = http.ServerResponse.prototype.end;
  http.ServerResponse.prototype.end = function endThenFinish(...args) {
    const result = Reflect.apply(end, this, args);
    const ended = this[kEnded];
    // A response ended twice would start a request more and end its round early: the figure would be wrong.
    if (ended === undefined) throw new Error('in-process: a response ended twice, or one this benchmark never made');
    this[kEnded] = undefined;
    if (this.statusCode !== 200) throw new Error(`in-process: GET /users/42 answered ${this.statusCode}`);
    process.nextTick(() =>
      socketContext.runInAsyncScope(() => {
        this.emit('finish');
        this.emit('close');
        ended();
      }),
    );
    return result;
  };
}

/** What Node's HTTP/1.1 parser sets on a GET /users/42 before it hands the request to a server. */
const getUser = {
  httpVersionMajor: 1,
  httpVersionMinor: 1,
  httpVersion: '1.1',
  method: 'GET',
  url: '/users/42',
  rawHeaders: ['Host', '127.0.0.1'],
};

/** Drives `count` requests through `listener`, `inFlight` at a time; resolves when every one has ended. */
function drive(listener, count) {
  const newExchange = requestExchanges(getUser);
  let started = 0;
  let ended = 0;
  return new Promise((resolve) => {
    const onEnded = () => {
      ended++;
      if (started < count) startOne();
      else if (ended === count) resolve();
    };
    const startOne = () => {
      started++;
      const [req, res] = newExchange();
      res[kEnded] = onEnded;
      listener(req, res);
    };
    for (let i = 0; i < inFlight; i++) startOne();
  });
}

/** CPU ns (user and system) per request of one round of `listener`. */
async function cpuNsPerRequest(listener) {
  const start = process.cpuUsage();
  await drive(listener, requestsPerRound);
  const { user, system } = process.cpuUsage(start);
  return ((user + system) * 1000) / requestsPerRound;
}

/** The child: every variant's app of `framework`, in turns; CPU ns per request of each, per round. */
async function measure(framework) {
  endInMemory();
  const listeners = {};
  for (const variant of variants) {
    listeners[variant] = (await frameworkServer(framework, variant)).listeners('request')[0];
  }
  for (const variant of variants) await drive(listeners[variant], requestsPerRound); // warm-up
  const samples = Object.fromEntries(variants.map((variant) => [variant, []]));
  for (let round = 0; round < rounds; round++) {
    for (let turn = 0; turn < variants.length; turn++) {
      const variant = variants[(round + turn) % variants.length];
      samples[variant].push(await cpuNsPerRequest(listeners[variant]));
    }
  }
  return samples;
}

const serverFile = fileURLToPath(new URL('server.mjs', import.meta.url));
const fullLoad = { path: '/users/42', connections: 50, duration: 1 };

/** The hand-written variant's server CPU µs per request at full load: the median of 5 one-second rounds. */
async function serverCpuPerRequest(framework) {
  const server = await startServer(serverFile, [framework, 'als'], 'als');
  try {
    await server.burst({ ...fullLoad, duration: 2 }); // warm-up
    const perRound = [];
    for (let round = 0; round < 5; round++) perRound.push((await server.burst(fullLoad)).cpuPerRequest);
    return median(perRound);
  } finally {
    server.stop();
  }
}

const iqr = (values) => `${Math.round(quantile(values, 0.25))}-${Math.round(quantile(values, 0.75))}`;
const percent = (value) => `${(value * 100).toFixed(1)}%`;

/**
 * Runs each framework in fresh processes and prints ns per request and the share. The budget is Node 24's: on
 * that line its verdict goes by the median, as `ratioBudget`'s do, and says when the interquartile range spans
 * it; on the others the share is printed without a verdict.
 */
export async function runInProcess() {
  const judged = process.version.startsWith(budgetLine);
  let withinBudget = true;
  console.log(
    `\nIn-process CPU ns per request, GET /users/:id, Node ${process.version}: ${processes} processes x ${rounds} ` +
      `rotating rounds of ${requestsPerRound} requests (${inFlight} in flight); median (IQR)`,
  );
  for (const framework of selectedFrameworks()) {
    const rows = Object.fromEntries(variants.map((variant) => [variant, []]));
    for (const samples of measureInFreshProcesses(fileURLToPath(import.meta.url), [framework], processes)) {
      for (const variant of variants) rows[variant].push(...samples[variant]);
    }
    // Paired within each round: the same seconds of this machine for both variants.
    const added = rows.ambient.map((ns, round) => ns - rows.als[round]);
    for (const variant of variants) {
      console.log(`  ${framework} ${variant.padEnd(8)} ${Math.round(median(rows[variant]))} (${iqr(rows[variant])})`);
    }
    const cpuNs = (await serverCpuPerRequest(framework)) * 1000;
    const [low, mid, high] = [0.25, 0.5, 0.75].map((q) => quantile(added, q) / cpuNs);
    const inProcessShare = median(added.map((ns, round) => ns / rows.als[round]));
    const figure =
      `  ${framework}: Ambient adds ${Math.round(median(added))} ns (${iqr(added)}) a request over the ` +
      `hand-written middleware: ${percent(mid)} (${percent(low)}-${percent(high)}) of its server's ` +
      `${(cpuNs / 1000).toFixed(1)} µs of CPU a request (${percent(inProcessShare)} of its in-process work)`;
    if (!judged) {
      console.log(`${figure} (the budget is Node 24's)`);
      continue;
    }
    const ok = mid <= shareBudget;
    const resolved = high <= shareBudget || low > shareBudget;
    if (!ok) withinBudget = false;
    verdict(
      `${figure}: ${ok ? 'ok' : 'OVER BUDGET'} (budget <= ${percent(shareBudget)})` +
        `${resolved ? '' : '; not resolved here, the IQR spans it'}`,
    );
  }
  return withinBudget;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv[2] === 'measure') {
    process.stdout.write(JSON.stringify(await measure(process.argv[3])));
    process.exit(0);
  }
  process.exitCode = (await runInProcess()) ? 0 : 1;
}

// Instructions a real server executes per request once V8 has stopped compiling: the measure behind issue #18's
// req/s budgets (frameworks/instructions.mjs, full-stack/instructions.mjs), which repeats where req/s does not on
// this VM (±15% between identical runs).
//
// Method. A benchmark server (serveForBenchmark) in a process of its own under valgrind's callgrind, driven over
// one autocannon connection, so that every request is one wake-up of the server in every run, whatever the
// machine is doing. The server runs with V8's --predictable (its compilers and collector on the main thread, at
// points that do not depend on timing), which makes a process's count repeat. Each process is warmed up on
// connections of 3,000 requests, one after another, until V8 has nearly stopped compiling (below); the next 4,000
// requests, on a connection of their own, are counted.
//
// Why so long a warm-up, and why compilation is left out. A function a server runs once per request reaches
// TurboFan's thresholds (3,000 calls on Node 24, and more after each change of its feedback) only after thousands
// of requests. On fastify, Node 24, TurboFan was still compiling in requests 7,000 to 11,000, where it took 52% of
// the instructions counted, and the instructions of the rest fell by a third between requests 1,000 and 15,000.
// On express, compiling came in bursts until request 24,000 (Node 24) and 27,000 (Node 26). An earlier version took
// the difference of processes serving 1,000 and 3,000 requests after 1,000 of warm-up, and so measured mostly
// compilation, which a server pays once and, without --predictable, on a helper thread: it read 119,560
// instructions a request for fastify's hand-written hook, where the steady server runs 63,733. So the warm-up goes
// on until a connection in which V8's compilers took under 5% of the instructions (at least 15,000 requests, at
// most 30,000; a verdict needs both variants to get there and stay there while counted), and the count leaves out
// what is still spent inside V8's compilers (callgrind-profile.mjs; printed beside each figure). The collector's
// work stays in: it grows with what a request allocates.
//
// A CPU-bound server serves requests in inverse proportion to its CPU per request. Both variants of a comparison
// run the same HTTP parser and make the same system calls, whose kernel work callgrind does not count, so the
// ratio of user-space instructions approximates the req/s ratio; it is not a req/s budget's own definition
// (instructions are not cycles), and the load runs' figures stay beside it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  callgrindProfile,
  dumpCallgrind,
  hasCallgrindControl,
  partInstructions,
  v8Compilers,
} from './callgrind-profile.mjs';
import { hasValgrind, median, range, twoAtATime, verdict } from './harness.mjs';
import { startServer } from './load.mjs';

/**
 * The warm-up: connections of 3,000 requests, one after another (a new connection after one long one deoptimized
 * code fastify had optimized), at least five and at most ten, until one in which V8's compilers took under 5% of
 * the instructions. The counted connection must stay under 5% too, or the process counted code V8 was still
 * recompiling.
 */
const warmUpRequests = 3_000;
const warmUpConnections = { least: 5, most: 10 };
const calmCompiling = 0.05;
const countedRequests = 4_000;
/** Processes a variant. */
const repeats = 2;
/**
 * How far from a budget a ratio must be to decide it. The two processes of a variant count within 0.2% of each
 * other (0.11% at most: Node 24.21, every framework; Node 26.10, express): a ratio moves by less than 0.01.
 */
const resolution = 0.01;

/** The method in one line, for a table's title. */
export const steadyMethod =
  `${countedRequests} requests counted after a warm-up of ${warmUpConnections.least * warmUpRequests} to ` +
  `${warmUpConnections.most * warmUpRequests}, one connection, V8's compilers left out; median (range) of ` +
  `${repeats} processes`;

/** Can this machine count instructions? Says why not when it cannot. */
export async function canCountInstructions(benchmark) {
  if (hasValgrind() && (await hasCallgrindControl())) return true;
  console.log(`\n${benchmark}: skipped, valgrind (with callgrind_control) is not installed`);
  return false;
}

/**
 * One server process (`serverFile` with `args`) under callgrind: its instructions per counted request to `path`,
 * without compilation (`perRequest`), what compilation still took a counted request (`compiling`), how many
 * requests the warm-up took (`warmUp`), and whether V8 had (nearly) stopped compiling by then and in the counted
 * requests (`calm`).
 */
async function serverInstructions(serverFile, args, path) {
  let directory;
  let server;
  try {
    directory = await mkdtemp(join(tmpdir(), 'ambient-callgrind-'));
    const profile = join(directory, 'callgrind.out');
    server = await startServer(serverFile, args, args.join(' '), {
      execPath: 'valgrind',
      execArgv: [...callgrindProfile(profile), process.execPath, '--predictable'],
      captureErrors: true,
    });
    // valgrind's start-up and the first requests take seconds each: no autocannon timeout may cut them short.
    const load = { path, connections: 1, timeout: 120 };
    let parts = 0;
    /** Serves `amount` requests on a new connection; the instructions callgrind counted for them, by part. */
    const serveAndCount = async (amount) => {
      await server.burst({ ...load, amount });
      await dumpCallgrind(server.pid);
      parts++;
      const part = await partInstructions(`${profile}.${parts}`, v8Compilers);
      return { ...part, calm: part.within < calmCompiling * part.total };
    };
    let warmedUp = false;
    while (parts < warmUpConnections.most && !(warmedUp && parts >= warmUpConnections.least)) {
      warmedUp = (await serveAndCount(warmUpRequests)).calm;
    }
    const { total, within, calm } = await serveAndCount(countedRequests);
    const code = await server.exit();
    if (code !== 0) throw new Error(`exited ${code}\n${server.errors()}`);
    return {
      perRequest: (total - within) / countedRequests,
      compiling: within / countedRequests,
      warmUp: (parts - 1) * warmUpRequests,
      calm: warmedUp && calm,
    };
  } catch (error) {
    throw new Error(`${args.join(' ')}: ${error.message}`, { cause: error });
  } finally {
    // After a failure the server may still run, and callgrind write its last dump into the directory.
    if (server !== undefined) {
      server.stop();
      await server.closed();
    }
    if (directory !== undefined) await rm(directory, { recursive: true, force: true });
  }
}

/**
 * Every one of `variants`, `repeats` processes each (`serverFile` with `argsOf(variant)`), two processes at a
 * time; the figures of each variant's processes, by variant.
 */
export async function steadyInstructions(serverFile, argsOf, variants, path) {
  const runs = variants.flatMap((variant) => Array.from({ length: repeats }, () => variant));
  const figures = Object.fromEntries(variants.map((variant) => [variant, []]));
  await twoAtATime(runs, async (variant) =>
    figures[variant].push(await serverInstructions(serverFile, argsOf(variant), path)),
  );
  return figures;
}

/** Instructions per request of each process of a variant. */
function perRequest(figures) {
  return figures.map((figure) => figure.perRequest);
}

/** One row of a table: a variant's median (range), its ratio to `reference`, and what compiling still took. */
export function printSteadyRow(label, figures, referenceFigures, referenceLabel) {
  const counts = perRequest(figures);
  const ratio = median(counts) / median(perRequest(referenceFigures));
  const compiling = median(figures.map((figure) => figure.compiling));
  console.log(
    `  ${label.padEnd(36)} ${median(counts).toFixed(0).padStart(8)} (${range(counts)})  ` +
      `${ratio.toFixed(3)}x ${referenceLabel}; compiling, left out: ${compiling.toFixed(0)}; ` +
      `warm-up ${range(figures.map((figure) => figure.warmUp))}` +
      `${figures.every((figure) => figure.calm) ? '' : ' (V8 still compiling)'}`,
  );
}

/**
 * The req/s ratio instructions allow `candidate` over `reference` (a CPU-bound server's req/s is the inverse of
 * its instructions per request), and whether the figures can decide a budget on it: both variants' processes
 * calm, ranges apart, and the ratio at least `resolution` from the budget.
 */
export function steadyRatio(reference, candidate) {
  const referenceCounts = perRequest(reference);
  const candidateCounts = perRequest(candidate);
  const ratio = median(referenceCounts) / median(candidateCounts);
  const overlap =
    Math.max(...referenceCounts) >= Math.min(...candidateCounts) &&
    Math.max(...candidateCounts) >= Math.min(...referenceCounts);
  const calm = [...reference, ...candidate].every((figure) => figure.calm);
  return { ratio, overlap, calm };
}

/**
 * Prints the verdict of the budget `text` (a ratio of at least `budget`) on `figure` (steadyRatio's); false when
 * it is missed. A figure from a process V8 was still compiling in gives no verdict, and does not fail the run. One
 * whose ranges overlap or that lies within `resolution` of the budget says it is not resolved, and still fails the
 * run when below the budget.
 */
export function steadyBudget(text, { ratio, overlap, calm }, budget) {
  const figure = `${text}: ${ratio.toFixed(3)}x${overlap ? ' (ranges overlap)' : ''}`;
  // A process in which V8 was still compiling counted code it had not finished optimizing: no verdict from it.
  if (!calm) {
    verdict(
      `budget check: ${figure}: not resolved here (V8 spent ${calmCompiling * 100}% or more of the instructions ` +
        `compiling in the warm-up's last connection or the counted one)`,
    );
    return true;
  }
  const ok = ratio >= budget;
  const resolved = !overlap && Math.abs(ratio - budget) >= resolution;
  verdict(
    `budget check: ${figure}: ${ok ? 'ok' : 'MISSED'} (needs >= ${budget}x)` +
      `${resolved ? '' : `; not resolved here (ranges overlap, or within ${resolution} of the budget)`}`,
  );
  return ok;
}

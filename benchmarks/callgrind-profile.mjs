// Counts from a callgrind profile by function, for the benchmarks that must tell a server's steady work from V8
// compiling it (frameworks/instructions.mjs). A profile, unlike the bare total harness.mjs reads, says which
// function each instruction ran in, and callgrind_control cuts it into parts while the process runs, so that a
// warm-up can be left out of the count without a second process.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';

/** valgrind's arguments for a callgrind profile by function (not by instruction) in `file`; `node` follows. */
export function callgrindProfile(file) {
  return ['--tool=callgrind', `--callgrind-out-file=${file}`, '--dump-instr=no'];
}

/** Is callgrind_control (valgrind's script that talks to a running callgrind) installed? */
export async function hasCallgrindControl() {
  try {
    await promisify(execFile)('callgrind_control', ['--version']);
    return true;
  } catch {
    return false;
  }
}

/**
 * Tells the callgrind of process `pid` (valgrind's own) to dump its counters as the next part of its profile
 * (`<file>.1`, `<file>.2`, ...) and start again from zero. callgrind_control exits 0 even when it found no such
 * callgrind: the caller checks that the part is there (partInstructions rejects if it is not).
 */
export async function dumpCallgrind(pid) {
  await promisify(execFile)('callgrind_control', ['--dump', String(pid)]);
}

/**
 * The runtime functions through which JavaScript enters V8's compilers: Maglev and TurboFan (`--predictable` makes
 * both run on the main thread, inside these calls, where they would otherwise run on a helper thread), lazy
 * bytecode compilation and on-stack replacement. Not Sparkplug's batches, which start from a budget interrupt
 * several calls below a runtime function that does more than compile: a few hundred instructions a request,
 * left in the count.
 */
export const v8Compilers =
  /\bv8::internal::Runtime_(?:OptimizeTurbofanEager|OptimizeMaglevEager|CompileLazy|CompileOptimizedOSR\w*)\(/;

/**
 * The instructions (the `Ir` event) one part of a callgrind profile counts: its `total`, and `within`, those spent
 * in calls to the functions `entries` matches: the inclusive cost of every call to one of them from a function it
 * does not match, so that one calling another directly is not counted twice (one calling another through a
 * function it does not match would be; V8's compiler entries do not call each other).
 */
export async function partInstructions(file, entries) {
  const names = new Map(); // callgrind's name compression: "(12) name" the first time, "(12)" after
  const nameOf = (spec) => {
    const compressed = /^\((\d+)\)(?: (.*))?$/.exec(spec);
    if (compressed === null) return spec;
    if (compressed[2] !== undefined) names.set(compressed[1], compressed[2]);
    return names.get(compressed[1]);
  };
  let total;
  let within = 0;
  let callerMatches = false;
  let callee = '';
  let callCostNext = false;
  let positions = 1; // a cost line's columns before its events: `positions: line` (the default), or more
  let instructionsAt = 0; // the place of Ir among the events
  for (const line of (await readFile(file, 'utf8')).split('\n')) {
    if (callCostNext) {
      // The line after `calls=`: the call's position and its inclusive cost.
      callCostNext = false;
      const cost = Number(line.trim().split(/\s+/)[positions + instructionsAt] ?? 0);
      if (!callerMatches && entries.test(callee)) within += cost;
    } else if (line.startsWith('positions:')) {
      positions = line.split(/\s+/).length - 1;
    } else if (line.startsWith('events:')) {
      instructionsAt = Math.max(0, line.split(/\s+/).slice(1).indexOf('Ir'));
    } else if (line.startsWith('fn=')) {
      callerMatches = entries.test(nameOf(line.slice(3)));
    } else if (line.startsWith('cfn=')) {
      callee = nameOf(line.slice(4));
    } else if (line.startsWith('calls=')) {
      callCostNext = true;
    } else if (line.startsWith('summary:') || line.startsWith('totals:')) {
      total = Number(line.split(/\s+/)[1 + instructionsAt]);
    }
  }
  if (total === undefined) throw new Error(`${file}: no summary or totals line; not a callgrind profile?`);
  return { total, within };
}

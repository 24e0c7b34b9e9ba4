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

/** Are callgrind_control and valgrind both installed? */
export async function hasCallgrindControl() {
  try {
    await promisify(execFile)('callgrind_control', ['--version']);
    return true;
  } catch {
    return false;
  }
}

/**
 * Tells the callgrind of process `pid` (valgrind's own) to `zero` its counters, or to `dump` them as the next
 * part of its profile (`<file>.1`, `<file>.2`, ...) and start again from zero. Resolves once callgrind has done it.
 */
export async function controlCallgrind(pid, command) {
  await promisify(execFile)('callgrind_control', [`--${command}`, String(pid)]);
}

/**
 * The runtime functions through which JavaScript enters V8's compilers: Maglev and TurboFan (`--predictable` makes
 * both run on the main thread, inside these calls, where they would otherwise run on a helper thread), lazy
 * bytecode compilation, on-stack replacement and Sparkplug.
 */
export const v8Compilers =
  /\bv8::internal::Runtime_(?:OptimizeTurbofanEager|OptimizeMaglevEager|CompileLazy|CompileOptimizedOSR\w*|CompileBaseline|InstallBaselineCode)\(/;

/**
 * The instructions one part of a callgrind profile counts: its `total`, and `within`, those spent in calls to the
 * functions `entries` matches, counted once each: the inclusive cost of every call to one of them from a function
 * it does not match, so that calls they make to each other are not counted twice.
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
  for (const line of (await readFile(file, 'utf8')).split('\n')) {
    if (callCostNext && /^[\d+*-]/.test(line)) {
      // The line after `calls=`: the call's position and its inclusive cost.
      callCostNext = false;
      if (!callerMatches && entries.test(callee)) within += Number(line.trim().split(/\s+/).at(-1));
    } else if (line.startsWith('fn=')) {
      callerMatches = entries.test(nameOf(line.slice(3)));
    } else if (line.startsWith('cfn=')) {
      callee = nameOf(line.slice(4));
    } else if (line.startsWith('calls=')) {
      callCostNext = true;
    } else if (line.startsWith('summary:') || line.startsWith('totals:')) {
      total = Number(line.split(/\s+/)[1]);
    }
  }
  if (total === undefined) throw new Error(`${file}: no summary or totals line; not a callgrind profile?`);
  return { total, within };
}

// Runs the suite's processes a few at a time, each with its output kept whole. On a 2-core machine most checks
// are one single-threaded process each (tsc, eslint, npm pack, attw), so two at a time take less time than in
// turn, if not half (side by side they slow each other: the static checks went from 85 to 67 s). Output is
// buffered and printed in a fixed order, so a failure reads the same whatever finished first.
import { spawn } from 'node:child_process';

/**
 * Starts a command: the process, and a promise of its exit status, its stdout, and everything it wrote (stdout
 * and stderr, in order) once it has closed.
 */
export function start(command, args, options = {}) {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = [];
  child.stdout.on('data', (chunk) => output.push([process.stdout, chunk]));
  child.stderr.on('data', (chunk) => output.push([process.stderr, chunk]));
  child.on('error', (error) => output.push([process.stderr, `${error.message}\n`]));
  const done = new Promise((resolve) => {
    child.on('close', (status) => {
      const stdout = Buffer.concat(output.filter(([stream]) => stream === process.stdout).map(([, chunk]) => chunk));
      resolve({ status, stdout: stdout.toString('utf8'), output });
    });
  });
  return { child, done };
}

/** Runs a command; resolves as start()'s promise does. */
export function run(command, args, options = {}) {
  return start(command, args, options).done;
}

/** What inLanes rejects a task with when an earlier one failed under `stopAfterFailure`. */
const notStarted = new Error('not started: an earlier task failed');

/**
 * Starts each of `tasks` (functions that return a promise) as soon as one of `concurrency` lanes is free, in the
 * order given; returns their promises in that order, so the caller can report them in turn. With
 * `stopAfterFailure`, a failed task starts no more (one failed benchmark process fails the benchmark): the tasks
 * not yet started reject with `notStarted`, and those already running are left to end.
 */
export function inLanes(tasks, concurrency, { stopAfterFailure = false } = {}) {
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`inLanes: concurrency must be a positive integer, not ${concurrency}`);
  }
  const settle = tasks.map(() => ({}));
  const results = settle.map(
    (slot) =>
      new Promise((resolve, reject) => {
        slot.resolve = resolve;
        slot.reject = reject;
      }),
  );
  // A task that fails before the caller reaches it in turn is not an unhandled rejection: the caller awaits it.
  for (const result of results) result.catch(() => {});
  let next = 0;
  const lane = async () => {
    while (next < tasks.length) {
      const index = next++;
      try {
        settle[index].resolve(await tasks[index]());
      } catch (error) {
        settle[index].reject(error);
        if (stopAfterFailure) {
          while (next < tasks.length) settle[next++].reject(notStarted);
        }
      }
    }
  };
  for (let started = 0; started < Math.min(concurrency, tasks.length); started++) void lane();
  return results;
}

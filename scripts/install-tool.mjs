// A folder of tools/ installed on first use (`npm ci --prefix`), once, however many test processes ask at the same
// time: node --test runs test files in parallel, and two npm installs into one folder break each other (a clean
// CI run's first matrix line lost two OpenTelemetry SDK 3.x cases to it). The first process takes a lock (a
// directory beside the folder: mkdir is atomic), installs and removes it; the others wait for it to go.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, statSync } from 'node:fs';

const lockWait = 500;
// An install takes seconds; a lock older than this was left by a process that died while installing.
const staleLock = 10 * 60 * 1000;

/** Sleeps the thread: the callers are synchronous test helpers, and nothing else has to run meanwhile. */
function sleep(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Installs the tool folder `dir` from its lockfile unless `installed()` says it is there; `npmArgs` are added to
 * `npm ci` (`--ignore-scripts`). Returns npm's exit status, or 0 when nothing had to be installed.
 */
export function installTool(dir, installed, npmArgs = []) {
  const lock = `${dir.replace(/\/$/, '')}.installing`;
  for (;;) {
    if (installed()) return 0;
    try {
      mkdirSync(lock);
    } catch {
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > staleLock) rmSync(lock, { recursive: true, force: true });
      else sleep(lockWait);
      continue;
    }
    try {
      if (installed()) return 0;
      const npm = spawnSync('npm', ['ci', '--prefix', dir, '--no-audit', '--no-fund', ...npmArgs], {
        stdio: 'inherit',
      });
      return npm.status ?? 1;
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

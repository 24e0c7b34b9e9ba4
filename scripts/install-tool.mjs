// A folder of tools/ installed on first use (`npm ci --prefix`), once, however many test processes ask at the same
// time: node --test runs test files in parallel, and two npm installs into one folder break each other (a clean
// CI run's first matrix line lost two OpenTelemetry SDK 3.x cases to it). The first process takes a lock (a
// directory beside the folder: mkdir is atomic), installs and removes it; the others wait for it to go.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';

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
  const folder = dir.replace(/\/$/, '');
  const lock = `${folder}.installing`;
  // Written when npm ci has finished (npm ci removes node_modules first): while another process installs, the
  // packages `installed()` looks for appear one by one, and a require before the rest are there resolves them
  // from the workspace's node_modules instead (a clean CI run got the workspace's api 1.9 for the SDK's 1.10).
  const complete = `${folder}/node_modules/.installed-complete`;
  const done = () => existsSync(complete) && installed();
  for (;;) {
    if (done()) return 0;
    try {
      mkdirSync(lock);
    } catch {
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > staleLock) rmSync(lock, { recursive: true, force: true });
      else sleep(lockWait);
      continue;
    }
    try {
      if (done()) return 0;
      const npm = spawnSync('npm', ['ci', '--prefix', dir, '--no-audit', '--no-fund', ...npmArgs], {
        stdio: 'inherit',
      });
      if (npm.status === 0) writeFileSync(complete, '');
      return npm.status ?? 1;
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

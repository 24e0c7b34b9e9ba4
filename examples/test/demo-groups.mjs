// Runs a jobs example's demo (jobs-bullmq, jobs-amqp) and reads back what it prints: one group of log lines per
// correlation id, each `correlationId ID` followed by its lines.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The demo at `path` (relative to examples/test), run to its end: its groups as [id, ...lines]. */
export function demoGroups(path) {
  const demo = fileURLToPath(new URL(path, import.meta.url));
  const { status, stdout, stderr } = spawnSync(process.execPath, [demo], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(status, 0, stderr);
  return stdout
    .split('\ncorrelationId ')
    .slice(1)
    .map((group) => group.trim().split('\n'));
}

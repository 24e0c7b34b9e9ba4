import { spawnSync } from 'node:child_process';

/**
 * Is Redis reachable on 127.0.0.1:6379? Checked synchronously (a child process tries to connect) so that a
 * test file can choose describe or describe.skip: absent, the tests are skipped with a loud message, and
 * under CI=true absence fails the run.
 */
export function describeWithRedis(name: string, body: () => void): void {
  const probe =
    "require('net').connect(6379, '127.0.0.1').on('connect', () => process.exit(0)).on('error', () => process.exit(1))";
  const reachable = spawnSync(process.execPath, ['-e', probe], { timeout: 5000 }).status === 0;
  if (!reachable) {
    if (process.env['CI'] === 'true')
      throw new Error('Redis is not reachable on 127.0.0.1:6379, and CI=true requires it');
    console.warn(`\n  SKIPPED: Redis is not reachable on 127.0.0.1:6379: ${name}\n`);
  }
  (reachable ? describe : describe.skip)(name, body);
}

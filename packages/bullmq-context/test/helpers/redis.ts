import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const servicesModule = fileURLToPath(new URL('../../../../scripts/services.mjs', import.meta.url));

/**
 * describe, or describe.skip where Redis is not reachable on 127.0.0.1:6379. jest collects tests
 * synchronously, so the repository's one reachability check (scripts/services.mjs) runs in a child process;
 * absent, the tests are skipped with a loud message, and under CI=true absence fails the run.
 */
export function describeWithRedis(name: string, body: () => void): void {
  const probe =
    `import(${JSON.stringify(servicesModule)}).then(async ({ reachable, loginRefusal, services }) => {` +
    `  if (!(await reachable(services.redis))) process.exit(1);` +
    `  const refusal = await loginRefusal('redis');` +
    `  if (refusal) { console.log(refusal); process.exit(2); }` +
    `  process.exit(0);` +
    `})`;
  // Generous: the probe answers at once when the port refuses or accepts; only a starved machine nears this, and
  // a timeout must not pass for an absent service. A refused login fails at once, naming its cause.
  const { status, stdout } = spawnSync(process.execPath, ['-e', probe], { timeout: 30_000, encoding: 'utf8' });
  if (status === 2) throw new Error(stdout.trim());
  const reachable = status === 0;
  if (!reachable) {
    if (process.env['CI'] === 'true')
      throw new Error('Redis is not reachable on 127.0.0.1:6379, and CI=true requires it');
    console.warn(`\n  SKIPPED: Redis is not reachable on 127.0.0.1:6379: ${name}\n`);
  }
  // Skipped only on a machine without Redis; under CI=true the line above fails instead.
  (reachable ? describe : describe.skip)(name, body);
}

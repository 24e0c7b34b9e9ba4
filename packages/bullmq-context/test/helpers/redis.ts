import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const servicesModule = fileURLToPath(new URL('../../../../scripts/services.mjs', import.meta.url));

/**
 * describe, or describe.skip where Redis is not reachable on 127.0.0.1:6379. jest collects tests
 * synchronously, so the repository's one reachability check (scripts/services.mjs) runs in a child process;
 * absent, the tests are skipped with a loud message, and under CI=true absence fails the run.
 */
export function describeWithRedis(name: string, body: () => void): void {
  const probe = `import(${JSON.stringify(servicesModule)}).then(({ reachable, services }) => reachable(services.redis)).then((ok) => process.exit(ok ? 0 : 1))`;
  // Generous: the probe answers at once when the port refuses or accepts; only a starved machine nears this, and
  // a timeout must not pass for an absent service.
  const reachable = spawnSync(process.execPath, ['-e', probe], { timeout: 30_000 }).status === 0;
  if (!reachable) {
    if (process.env['CI'] === 'true')
      throw new Error('Redis is not reachable on 127.0.0.1:6379, and CI=true requires it');
    console.warn(`\n  SKIPPED: Redis is not reachable on 127.0.0.1:6379: ${name}\n`);
  }
  // Skipped only on a machine without Redis; under CI=true the line above fails instead.
  (reachable ? describe : describe.skip)(name, body);
}

import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const servicesModule = fileURLToPath(new URL('../../../../scripts/services.mjs', import.meta.url));

export type Service = 'postgres' | 'mariadb' | 'redis';

const reachability = new Map<Service, boolean>();

/**
 * Is `service` reachable? Asked once per test file of scripts/services.mjs, in a child process (jest collects
 * tests synchronously). Reachable but refusing the tests' login throws at once, naming the cause, rather than
 * leaving every case to its timeout.
 */
function reachable(service: Service): boolean {
  let known = reachability.get(service);
  if (known === undefined) {
    const name = JSON.stringify(service);
    const probe =
      `import(${JSON.stringify(servicesModule)}).then(async ({ reachable, loginRefusal, services }) => {` +
      `  if (!(await reachable(services[${name}]))) process.exit(1);` +
      `  const refusal = await loginRefusal(${name});` +
      `  if (refusal) { console.log(refusal); process.exit(2); }` +
      `  process.exit(0);` +
      `})`;
    // Generous: the probe answers at once when the port refuses or accepts; only a starved machine nears this, and
    // a timeout must not pass for an absent service.
    const { status, stdout } = spawnSync(process.execPath, ['-e', probe], { timeout: 30_000, encoding: 'utf8' });
    if (status === 2) throw new Error(stdout.trim());
    known = status === 0;
    reachability.set(service, known);
  }
  return known;
}

/**
 * describe, or describe.skip where one of `needed` is not reachable on 127.0.0.1 (README: PostgreSQL 5432,
 * MariaDB 3306, Redis 6379). Absent, the tests are skipped with a loud message; under CI=true absence fails.
 */
export function describeWithServices(needed: readonly Service[], name: string, body: () => void): void {
  const missing = needed.filter((service) => !reachable(service));
  if (missing.length > 0) {
    const reason = `${missing.join(', ')} not reachable on 127.0.0.1`;
    if (process.env['CI'] === 'true') throw new Error(`${reason}, and CI=true requires it`);
    console.warn(`\n  SKIPPED: ${reason}: ${name}\n`);
  }
  // Skipped only on a machine without the service; under CI=true the line above fails instead.
  (missing.length === 0 ? describe : describe.skip)(name, body);
}

export const pgConfig = { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' } as const;
export const mysqlConfig = { host: '127.0.0.1', port: 3306, user: 'root', database: 'test' } as const;
export const redisConfig = { host: '127.0.0.1', port: 6379 } as const;
export const redisUrl = 'redis://127.0.0.1:6379';

const requireHere = createRequire(import.meta.url);

/** `name@version`, from the installed package's own package.json, for the table's driver column. */
export function versionOf(name: string): string {
  return `${name}@${(requireHere(`${name}/package.json`) as { version: string }).version}`;
}

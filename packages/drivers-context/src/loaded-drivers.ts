import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, sep } from 'node:path';

/** The drivers guardDrivers can guard only when given their module, by the option that takes it. */
export type PassedDriver = 'pg' | 'mysql2' | 'redis';

/**
 * Which of those Node has loaded (its module cache, which ESM imports of these CommonJS packages fill too):
 * pg always needs passing, mysql2 before 3.20 (from 3.20 its channels are used), node-redis for its client pool.
 */
export function loadedDriversNeedingModule(): PassedDriver[] {
  const files = Object.keys(createRequire(join(process.cwd(), 'index.js')).cache);
  const folderOf = (name: string): string | undefined => {
    const marker = `${sep}node_modules${sep}${name}${sep}`;
    const file = files.find((path) => path.includes(marker));
    return file === undefined ? undefined : file.slice(0, file.lastIndexOf(marker) + marker.length);
  };
  const found: PassedDriver[] = [];
  if (folderOf('pg') !== undefined) found.push('pg');
  const mysql2 = folderOf('mysql2');
  if (mysql2 !== undefined && !publishesChannels(mysql2)) found.push('mysql2');
  if (folderOf('redis') !== undefined) found.push('redis');
  return found;
}

/** mysql2 3.20 and later publish TracingChannels; an unreadable version counts as older. */
function publishesChannels(folder: string): boolean {
  try {
    const { version } = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { version?: unknown };
    const [major = 0, minor = 0] = String(version).split('.').map(Number);
    return major > 3 || (major === 3 && minor >= 20);
  } catch {
    return false;
  }
}

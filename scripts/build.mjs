// `npm run build`: every package of packages/, each after the Ambient packages it depends on, so the order is
// the one the packages' own package.json files state (dependencies, devDependencies, peerDependencies). Two
// builds run at a time where neither depends on the other; each build is tsc twice (scripts/build-package.mjs).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { start } from './lanes.mjs';

const packages = readdirSync('packages').map((folder) => {
  const manifest = JSON.parse(readFileSync(join('packages', folder, 'package.json'), 'utf8'));
  const needs = Object.keys({ ...manifest.dependencies, ...manifest.devDependencies, ...manifest.peerDependencies });
  return { folder, name: manifest.name, needs };
});
const names = new Set(packages.map(({ name }) => name));
for (const entry of packages) entry.needs = entry.needs.filter((name) => names.has(name));

const built = new Set();
const running = new Map();
const waiting = [...packages];
let failed = false;
while ((waiting.length > 0 || running.size > 0) && !failed) {
  while (running.size < 2) {
    const index = waiting.findIndex(({ needs }) => needs.every((name) => built.has(name)));
    if (index === -1) break;
    const [entry] = waiting.splice(index, 1);
    const build = start('npm', ['run', '--silent', 'build'], { cwd: join('packages', entry.folder) });
    running.set(
      entry.name,
      build.done.then((result) => ({ entry, result })),
    );
  }
  if (running.size === 0) {
    console.error(`build: a dependency cycle among ${waiting.map(({ name }) => name).join(', ')}`);
    process.exit(1);
  }
  const { entry, result } = await Promise.race(running.values());
  running.delete(entry.name);
  for (const [stream, chunk] of result.output) stream.write(chunk);
  if (result.status !== 0) {
    console.error(`build: ${entry.name} failed`);
    failed = true;
  } else {
    console.log(`built ${entry.name}`);
    built.add(entry.name);
  }
}
if (failed) {
  await Promise.allSettled(running.values());
  process.exit(1);
}

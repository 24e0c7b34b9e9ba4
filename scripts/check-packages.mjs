// Packaging is tested like code: every published package must pass publint and arethetypeswrong (its
// exports map resolves to the right JavaScript and types under node10, node16 CJS, node16 ESM and bundler).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const bin = (name) => join('node_modules', '.bin', name);
const failures = [];

for (const folder of readdirSync('packages')) {
  const dir = join('packages', folder);
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  if (manifest.private) continue;
  for (const [tool, args] of [
    ['publint', [bin('publint'), '--strict', dir]],
    ['attw', [bin('attw'), '--pack', dir, '--format', 'table-flipped']],
  ]) {
    console.log(`\n== ${tool} ${manifest.name}`);
    const { status } = spawnSync(args[0], args.slice(1), { stdio: 'inherit' });
    if (status !== 0) failures.push(`${tool} ${manifest.name}`);
  }
}

if (failures.length > 0) {
  console.error(`\npackage checks failed: ${failures.join(', ')}`);
  process.exit(1);
}
console.log('\npackage checks passed');

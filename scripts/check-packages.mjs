// Packaging is tested like code: every published package must pass publint and arethetypeswrong (its
// exports map resolves to the right JavaScript and types under node10, node16 CJS, node16 ESM and bundler),
// and its tarball (`npm pack --dry-run`) must hold exactly what we decided to ship: the ESM and CJS builds
// with source maps and declaration maps, the TypeScript sources they point to (so stack traces and
// go-to-definition land on real code), README, CHANGELOG and LICENSE; never tests or build leftovers.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

const bin = (name) => join('node_modules', '.bin', name);
const failures = [];

const allowed = [
  /^package\.json$/,
  /^README\.md$/,
  /^CHANGELOG\.md$/,
  /^LICENSE$/,
  /^src\/(?:[\w-]+\/)*[\w-]+\.ts$/,
  /^dist\/(?:esm|cjs)\/(?:[\w-]+\/)*[\w-]+\.(?:js|js\.map|d\.ts|d\.ts\.map)$/,
  /^dist\/cjs\/package\.json$/,
];

/** What `npm pack` would publish for `dir`, checked against the decision above; returns the problems. */
function checkTarball(dir) {
  const { stdout, status } = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: dir,
    encoding: 'utf8',
  });
  if (status !== 0) return ['npm pack --dry-run failed'];
  const files = new Set(JSON.parse(stdout)[0].files.map((file) => file.path));
  const problems = [];
  for (const file of files) if (!allowed.some((pattern) => pattern.test(file))) problems.push(`ships ${file}`);
  for (const required of ['package.json', 'README.md', 'CHANGELOG.md', 'LICENSE']) {
    if (!files.has(required)) problems.push(`lacks ${required}`);
  }
  for (const file of files) {
    if (!/^dist\/.*\.(?:js|d\.ts)$/.test(file)) continue;
    const map = `${file}.map`;
    if (!files.has(map)) {
      problems.push(`lacks ${map}`);
      continue;
    }
    const { sources } = JSON.parse(readFileSync(join(dir, map), 'utf8'));
    for (const source of sources) {
      const shipped = normalize(join(dirname(file), source));
      if (!files.has(shipped)) problems.push(`${map} points at ${shipped}, which is not shipped`);
    }
  }
  console.log(`${files.size} files${problems.length === 0 ? ', as decided' : ''}`);
  return problems;
}

for (const folder of readdirSync('packages')) {
  const dir = join('packages', folder);
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  if (manifest.private) continue;
  console.log(`\n== tarball ${manifest.name}`);
  for (const problem of checkTarball(dir)) {
    console.error(`  ${problem}`);
    failures.push(`tarball ${manifest.name}: ${problem}`);
  }
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

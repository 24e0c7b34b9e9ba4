// Packaging is tested like code: every published package must pass publint and arethetypeswrong (its
// exports map resolves to the right JavaScript and types under node10, node16 CJS, node16 ESM and bundler),
// and its tarball (`npm pack --dry-run`) must hold exactly what we decided to ship: the ESM and CJS builds
// with source maps and declaration maps, the TypeScript sources they point to (so stack traces and
// go-to-definition land on real code), README, CHANGELOG and LICENSE; never tests or build leftovers.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { inLanes, run } from './lanes.mjs';

const bin = (name) => join('node_modules', '.bin', name);

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
async function checkTarball(dir, say) {
  const { stdout, status } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: dir });
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
  say(process.stdout, `${files.size} files${problems.length === 0 ? ', as decided' : ''}\n`);
  return problems;
}

/** Every check of one package, in turn; resolves to what they wrote and what failed, for the report. */
async function checkPackage(dir, name) {
  const report = [];
  const failed = [];
  const say = (stream, text) => report.push([stream, text]);
  say(process.stdout, `\n== tarball ${name}\n`);
  for (const problem of await checkTarball(dir, say)) {
    say(process.stderr, `  ${problem}\n`);
    failed.push(`tarball ${name}: ${problem}`);
  }
  for (const [tool, args] of [
    ['publint', [bin('publint'), '--strict', dir]],
    ['attw', [bin('attw'), '--pack', dir, '--format', 'table-flipped']],
  ]) {
    say(process.stdout, `\n== ${tool} ${name}\n`);
    const { status, output } = await run(args[0], args.slice(1));
    report.push(...output);
    if (status !== 0) failed.push(`${tool} ${name}`);
  }
  return { report, failed };
}

const packages = readdirSync('packages')
  .map((folder) => join('packages', folder))
  .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) }))
  .filter(({ manifest }) => !manifest.private);

// Two packages at a time: each check is a process of its own (npm pack, publint, attw) that uses one core. A
// package's checks stay in turn, since they work in its folder (attw --pack writes its tarball there). Each
// package's report is printed whole, in folder order.
const checks = inLanes(
  packages.map(
    ({ dir, manifest }) =>
      () =>
        checkPackage(dir, manifest.name),
  ),
  2,
);
const failures = [];
for (const check of checks) {
  const { report, failed } = await check;
  for (const [stream, text] of report) stream.write(text);
  failures.push(...failed);
}

if (failures.length > 0) {
  console.error(`\npackage checks failed: ${failures.join(', ')}`);
  process.exit(1);
}
console.log('\npackage checks passed');

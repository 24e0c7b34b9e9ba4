// The checks of `npm test` that run no test code: eslint, each package's type check, prettier and the type
// tests. Each is one single-threaded process, so they run two at a time: in turn they were 85 s of a suite that
// must stay under 15 minutes on a 2-core machine. Every command is the npm script a developer runs by hand
// (`npm run lint`, `npm run typecheck -w packages/core`, ...); each one's output is printed whole, in this order.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inLanes, run } from './lanes.mjs';

// Every workspace with a typecheck script, as the root `npm run typecheck` has them (packages/*, examples/*).
const typechecked = ['packages', 'examples']
  .flatMap((root) => readdirSync(root).map((folder) => join(root, folder)))
  .filter((dir) => existsSync(join(dir, 'package.json')))
  .filter((dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).scripts?.typecheck !== undefined);

// The longest first (eslint's type-aware rules, about 35 s), so no long check starts last and runs alone.
const checks = [
  ['lint'],
  ...typechecked.map((dir) => ['typecheck', `--workspace=${dir}`]),
  ['format:check'],
  ['test:types'],
];

const results = inLanes(
  checks.map((args) => async () => {
    const started = performance.now();
    const result = await run('npm', ['run', '--silent', ...args]);
    return { ...result, seconds: (performance.now() - started) / 1000 };
  }),
  2,
);
const failures = [];
for (const [index, result] of results.entries()) {
  const name = checks[index].join(' ');
  const { status, output, seconds } = await result;
  process.stdout.write(`\n== npm run ${name} (${seconds.toFixed(1)} s)\n`);
  for (const [stream, chunk] of output) stream.write(chunk);
  if (status !== 0) failures.push(name);
}

if (failures.length > 0) {
  console.error(`\nstatic checks failed: ${failures.join(', ')}`);
  process.exitCode = 1;
} else {
  console.log(`\nstatic checks passed: ${checks.map((args) => args.join(' ')).join('; ')}`);
}

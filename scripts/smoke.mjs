// Runs every package's plain `node --test` smoke tests (test/smoke/*.test.mjs) and the example apps' tests
// (examples/test/*.test.mjs) on the node running this script, so the Node matrix runs them on each version.
// Node 20's --test does not expand globs itself.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The `*.test.mjs` files directly in `dir`, or none where it does not exist. */
const testsIn = (dir) =>
  existsSync(dir)
    ? readdirSync(dir)
        .filter((name) => name.endsWith('.test.mjs'))
        .map((name) => join(dir, name))
    : [];

// The longest files first (25 s and 16 s on Node 24; no other takes 5 s): started late, one would run alone at
// the end while the other slot sits idle.
const longestFirst = [
  join('packages', 'diagnostics', 'test', 'smoke', 'diagnostics.test.mjs'),
  join('examples', 'test', 'readme-examples.test.mjs'),
].filter((file) => existsSync(file));
const files = [
  ...longestFirst,
  ...[
    ...testsIn(join('examples', 'test')),
    ...readdirSync('packages').flatMap((folder) => testsIn(join('packages', folder, 'test', 'smoke'))),
  ].filter((file) => !longestFirst.includes(file)),
];
if (files.length === 0) {
  console.error('smoke: no test/smoke/*.test.mjs files found');
  process.exit(1);
}

// Two files at a time, whatever the machine (node --test's default, availableParallelism() - 1, is one on a
// 2-core machine). They spend most of their time waiting on child processes, servers, Redis, RabbitMQ and the
// databases, and none shares anything fixed with another: servers listen on port 0, and queues, Redis keys,
// temporary folders and caches are named by a random id or the process id. A new smoke test must keep it so.
const concurrency = 2;

// --expose-gc: the retention tests force GC (node --test passes it on to each test file's process).
const { status } = spawnSync(
  process.execPath,
  ['--expose-gc', '--test', `--test-concurrency=${concurrency}`, ...files],
  { stdio: 'inherit' },
);
process.exit(status ?? 1);

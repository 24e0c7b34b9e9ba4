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

const files = [
  ...readdirSync('packages').flatMap((folder) => testsIn(join('packages', folder, 'test', 'smoke'))),
  ...testsIn(join('examples', 'test')),
];
if (files.length === 0) {
  console.error('smoke: no test/smoke/*.test.mjs files found');
  process.exit(1);
}
// --expose-gc: the retention tests force GC (node --test passes it on to each test file's process).
const { status } = spawnSync(process.execPath, ['--expose-gc', '--test', ...files], { stdio: 'inherit' });
process.exit(status ?? 1);

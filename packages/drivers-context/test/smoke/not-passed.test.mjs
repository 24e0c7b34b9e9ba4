// Plain `node --test`, outside jest (whose module registry is not Node's): guardDrivers() warns, with a code,
// about a loaded driver that it can guard only when given its module, and stays quiet once it is given.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const folder = fileURLToPath(new URL('.', import.meta.url));

/** The warnings a child process emits: `import pg`, then `guardDrivers(<call>)`. */
function warningsOf(call) {
  const script = `
    import pg from 'pg';
    import { guardDrivers } from '@ambient/drivers-context';
    const seen = [];
    process.on('warning', (warning) => seen.push({ code: warning.code, message: warning.message }));
    guardDrivers(${call});
    setImmediate(() => console.log(JSON.stringify(seen)));
  `;
  const child = spawnSync(process.execPath, ['--input-type=module', '--no-warnings', '-e', script], {
    cwd: folder,
    encoding: 'utf8',
  });
  assert.equal(child.status, 0, child.stderr);
  return JSON.parse(child.stdout);
}

test('guardDrivers() with pg loaded and not passed warns WARN_AMBIENT_DRIVERS_NOT_PASSED, naming pg', () => {
  const seen = warningsOf('');
  assert.deepEqual(
    seen.map((warning) => warning.code),
    ['WARN_AMBIENT_DRIVERS_NOT_PASSED'],
  );
  assert.match(seen[0].message, /guardDrivers\(\{ pg \}\)/);
});

test('guardDrivers({ pg }) says nothing', () => {
  assert.deepEqual(warningsOf('{ pg }'), []);
});

// The loggers example end to end: four concurrent requests, and for each, its winston line, its bunyan line and
// its two OTLP records (winston's and api-logs'), all under that request's id and no other.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

test('examples/loggers-otlp: each request has its own lines and records, from every logger', () => {
  const demo = fileURLToPath(new URL('../loggers-otlp/demo.mjs', import.meta.url));
  const { status, stdout, stderr } = spawnSync(process.execPath, [demo], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(status, 0, stdout + stderr);
  const groups = stdout
    .split('\n# ')
    .slice(1)
    .map((group) => group.trim().split('\n'));
  assert.equal(groups.length, 4);
  for (const [header, ...lines] of groups) {
    const [, order] = header.match(/^GET \/orders\/(\w+), request [\w-]+$/);
    assert.deepEqual(
      lines.map((line) => line.trim().replace(/\s+/g, ' ')),
      ['from winston', 'from bunyan', 'from winston (OTLP)', 'from api-logs (OTLP)'].map(
        (msg) => `${msg} order ${order}`,
      ),
    );
  }
});

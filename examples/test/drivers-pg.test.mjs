// The pg example end to end: its demo, on the real PostgreSQL at 127.0.0.1:5432, prints one group of lines per
// request, with that request's own BEGIN, SELECT and COMMIT among them, although the requests interleaved.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { serviceSkip } from '../../scripts/services.mjs';

// Skipped only where the service is not reachable on 127.0.0.1, with a loud warning; under CI=true serviceSkip
// throws instead, so CI always runs it.
const skip = await serviceSkip('postgres');

// `skip` (above): set only where the service is not reachable; under CI=true serviceSkip throws.
test('examples/drivers-pg: every request is one group of its own lines and queries', { skip }, () => {
  const demo = fileURLToPath(new URL('../drivers-pg/demo.mjs', import.meta.url));
  const { status, stdout, stderr } = spawnSync(process.execPath, [demo], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(status, 0, stdout + stderr);
  const [, ...groups] = stdout.split('\n\n#').map((group) => group.trim().split('\n'));
  assert.equal(groups.length, 4);
  const customers = [];
  for (const [header, ...lines] of groups) {
    const [, customer] = header.match(/^\d+ GET \/customers\/(\w+)\/orders, request [\w-]+$/);
    customers.push(customer);
    assert.deepEqual(
      lines.map((line) => line.trim().split(/\s+/).slice(0, 2).join(' ')),
      ['listing orders', 'query BEGIN', 'query SELECT', 'query COMMIT', 'orders listed'],
    );
    assert.match(lines[0], new RegExp(`"${customer}"$`));
    assert.match(lines[4], new RegExp(`"${customer}"$`));
    assert.match(lines[2], /SELECT id, \$1::text AS customer, id \* \? AS total FROM generate_series\(\?, \?\)/);
  }
  assert.deepEqual(customers.sort(), ['ada', 'grace', 'linus', 'margaret']);
  const order = stdout.match(/^ {2}- (#\d )+#\d$/m);
  assert.ok(order, 'the lines as written are listed');
});

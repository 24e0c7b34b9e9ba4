// The diagnostics example end to end: its demo reports each of the app's four bugs once, each pointing at the
// line of app.mjs to blame, and the log line the lost context wrote has no requestId.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

test('examples/diagnostics-express: lost, crossed, an outliving timer and a retained scope, each reported', () => {
  const demo = fileURLToPath(new URL('../diagnostics-express/demo.mjs', import.meta.url));
  const { status, stdout, stderr } = spawnSync(process.execPath, [demo], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(status, 0, stdout + stderr);
  const codes = [...stderr.matchAll(/\[(WARN_AMBIENT_\w+)\]/g)].map(([, code]) => code);
  assert.deepEqual(codes, [
    'WARN_AMBIENT_DIAGNOSTICS_ON',
    'WARN_AMBIENT_CONTEXT_LOST',
    // Two requests crossed at one call site: one report, both counted (report().crossed below).
    'WARN_AMBIENT_CONTEXT_CROSSED',
    'WARN_AMBIENT_TIMER_OUTLIVED_REQUEST',
    'WARN_AMBIENT_SCOPE_RETAINED',
  ]);
  assert.match(stderr, /\[WARN_AMBIENT_CONTEXT_LOST\].* at file:\/\/\/.*diagnostics-express\/app\.mjs:\d+:\d+/);
  assert.match(stderr, /\[WARN_AMBIENT_CONTEXT_CROSSED\].*, at file:\/\/\/.*diagnostics-express\/app\.mjs:\d+:\d+/);
  assert.match(stderr, /setInterval, armed\n {4}at file:\/\/\/.*diagnostics-express\/app\.mjs:\d+:\d+/);
  assert.match(stderr, /\(POST \/reports\/:name\/subscribe\) is still reachable/);
  assert.match(stderr, /report\(\): \{"lost":1,"crossed":2,"retained":1,"timers":1,"enterWith":0,"copies":0,/);
  const lines = stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  const priceLines = lines.filter((line) => line.msg === 'price sent');
  assert.equal(priceLines.length, 2);
  assert.ok(priceLines.every((line) => line.requestId === undefined));
  assert.ok(lines.find((line) => line.msg === 'subscribed').requestId);
});

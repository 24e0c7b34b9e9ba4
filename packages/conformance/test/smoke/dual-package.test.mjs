// Plain `node --test` on the built package: both builds load, importing starts nothing, and the ESM build runs
// the quick profile end to end against a tiny node:http harness with no context library at all (which must
// fail where context is needed).
import assert from 'node:assert/strict';
import { createHook } from 'node:async_hooks';
import { createRequire } from 'node:module';
import { test } from 'node:test';

const require = createRequire(import.meta.url);

test('importing either build starts no timer and no immediate', async () => {
  const started = [];
  const hook = createHook({
    init(_id, type) {
      if (type === 'Timeout' || type === 'Immediate') started.push(type);
    },
  });
  hook.enable();
  try {
    await import('@ambient/conformance');
    require('@ambient/conformance');
  } finally {
    hook.disable();
  }
  assert.deepEqual(started, []);
});

test('both builds export the suite', async () => {
  for (const build of [await import('@ambient/conformance'), require('@ambient/conformance')]) {
    assert.equal(typeof build.describeConformance, 'function');
    assert.equal(typeof build.runConformance, 'function');
    assert.deepEqual(build.conformanceProfiles, ['universal', 'ambient', 'quick', 'soak', 'soak-ci']);
  }
});

test('a node:http harness with no context library fails the quick cases that need one', async () => {
  const { nodeHttpHarness, runConformance } = await import('@ambient/conformance');
  const harness = nodeHttpHarness({
    name: 'node:http without context',
    wrap: (listener, onError) => (req, res) => {
      res.setHeader('x-request-id', 'fixed');
      listener(req, res).catch((error) => onError(error, req, res));
    },
    readRequestId: () => undefined,
  });
  const results = await runConformance(harness, { profiles: ['quick'] });
  const outcome = Object.fromEntries(results.map((result) => [result.id, result.outcome]));
  assert.equal(outcome['one-id-everywhere'], 'fail');
  assert.equal(outcome['concurrency'], 'fail');
  assert.equal(outcome['keep-alive'], 'fail');
  assert.equal(outcome['values-from-middleware'], 'unsupported');
  assert.equal(outcome['outside-request'], 'pass');
  assert.equal(outcome['request-id-valid'], undefined, 'the quick profile holds no ambient case');
});

// Plain `node --test` on the built package: both builds load, and the ESM build runs a case end to end
// against a tiny node:http harness with no context library at all (which must fail where context is needed).
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import * as esm from '@ambient/conformance';

const cjs = createRequire(import.meta.url)('@ambient/conformance');

test('both builds export the suite', () => {
  for (const build of [esm, cjs]) {
    assert.equal(typeof build.describeConformance, 'function');
    assert.equal(typeof build.runConformance, 'function');
  }
});

test('a node:http harness with no context library fails the cases that need one', async () => {
  const harness = esm.nodeHttpHarness({
    name: 'node:http without context',
    wrap: (listener, onError) => (req, res) => {
      res.setHeader('x-request-id', 'fixed');
      listener(req, res).catch((error) => onError(error, req, res));
    },
    readRequestId: () => undefined,
  });
  const results = await esm.runConformance(harness);
  const outcome = Object.fromEntries(results.map((result) => [result.id, result.outcome]));
  assert.equal(outcome['one-id-everywhere'], 'fail');
  assert.equal(outcome['request-id-valid'], 'fail');
  assert.equal(outcome['keep-alive'], 'fail');
  assert.equal(outcome['values-from-middleware'], 'unsupported');
  assert.equal(outcome['request-id-crlf'], 'pass');
});

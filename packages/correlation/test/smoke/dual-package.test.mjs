// Plain `node --test` on the built package, outside jest: its ESM and CJS builds are two copies of it, which
// must agree on what a carrier is and which results of readCarrier are already checked.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { requestContext } from '@ambient/core';
import * as esm from '@ambient/correlation';

const cjs = createRequire(import.meta.url)('@ambient/correlation');

test('a carrier written through one build opens a run through the other, with the producer as causation', () => {
  const carrier = requestContext.run({ requestId: 'smoke-producer' }, esm.contextCarrier);
  const seen = cjs.runJob({ name: 'send', carrier }, () => requestContext.snapshot());
  assert.equal(seen.causationId, 'smoke-producer');
  assert.equal(seen.correlationId, 'smoke-producer');
  assert.notEqual(seen.requestId, 'smoke-producer');
});

test("readCarrier's result read through one build is taken as it is by the other, and a look-alike is not", () => {
  const fields = esm.readCarrier({
    'x-request-id': 'smoke-read',
    traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`,
  });
  assert.equal(cjs.readCarrier(fields), fields);
  assert.equal(
    cjs.runJob({ name: 'send', carrier: fields }, () => requestContext.get('causationId')),
    'smoke-read',
  );
  const lookAlike = { causationId: 'smoke-forged' };
  assert.equal(
    cjs.runJob({ name: 'send', carrier: lookAlike }, () => requestContext.get('causationId')),
    undefined,
  );
});

test('both builds throw the same coded errors, real TypeErrors for a bad argument', () => {
  for (const build of [esm, cjs]) {
    assert.throws(() => build.runJob({ name: 'send' }, 'not a function'), {
      constructor: TypeError,
      code: 'ERR_AMBIENT_CORRELATION_INVALID_ARGUMENT',
    });
    assert.throws(() => build.runJob({ name: 'send', carier: {} }, () => 1), {
      code: 'ERR_AMBIENT_CORRELATION_INVALID_OPTION',
    });
  }
});

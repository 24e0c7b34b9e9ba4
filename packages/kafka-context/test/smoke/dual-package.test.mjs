// Plain `node --test` on the built package, outside jest: the ESM and CJS builds share one requestContext, and
// headers produced through one build are read through the other.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import * as esm from '@ambient/kafka-context';
import * as core from '@ambient/core';

const require = createRequire(import.meta.url);
const cjs = require('@ambient/kafka-context');

test('the ESM and CJS builds share requestContext and read each other’s headers', () => {
  assert.equal(core.requestContext, require('@ambient/core').requestContext);
  const headers = core.requestContext.run({ requestId: 'req-dual' }, () => esm.messageHeaders());
  const payload = { topic: 'orders', partition: 0, message: { headers } };
  assert.equal(cjs.eachMessage(() => core.requestContext.get('causationId'))(payload), 'req-dual');
  const bytes = core.requestContext.run({ requestId: 'req-map' }, () => cjs.messageHeaders(new Map()));
  assert.equal(
    esm.messageHandler(() => core.requestContext.get('causationId'))({ topic: 'orders', headers: bytes }),
    'req-map',
  );
});

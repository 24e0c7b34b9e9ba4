// Plain `node --test` on the built package, outside jest: the ESM and CJS builds share one requestContext, and
// user properties published through one build are read through the other.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import * as esm from '@ambient/mqtt-context';
import * as core from '@ambient/core';

const require = createRequire(import.meta.url);
const cjs = require('@ambient/mqtt-context');

test('the ESM and CJS builds share requestContext and read each other’s user properties', () => {
  assert.equal(core.requestContext, require('@ambient/core').requestContext);
  const { properties } = core.requestContext.run({ requestId: 'req-dual' }, () => esm.publishOptions({ qos: 1 }));
  const listener = cjs.messageListener(() => core.requestContext.get('causationId'));
  assert.equal(listener('orders', Buffer.alloc(0), { properties }), 'req-dual');
});

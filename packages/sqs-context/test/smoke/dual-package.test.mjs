// Plain `node --test` on the built package, outside jest: the ESM and CJS builds share one requestContext, and
// attributes made by one build are read by the other.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import * as esm from '@ambient/sqs-context';
import * as core from '@ambient/core';

const require = createRequire(import.meta.url);
const cjs = require('@ambient/sqs-context');

test('the ESM and CJS builds share requestContext and read each other’s attributes', () => {
  assert.equal(core.requestContext, require('@ambient/core').requestContext);
  const attributes = core.requestContext.run({ requestId: 'req-dual' }, () => esm.messageAttributes());
  const message = { MessageId: 'm-1', MessageAttributes: attributes };
  assert.equal(cjs.messageHandler(() => core.requestContext.get('causationId'))(message), 'req-dual');
  assert.deepEqual(cjs.messageAttributeNames(), esm.messageAttributeNames());
});

// Plain `node --test` on the built package, outside jest: the ESM and CJS builds share one requestContext, and
// headers published through one build are read through the other.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import * as esm from '@ambient/amqp-context';
import * as core from '@ambient/core';

const require = createRequire(import.meta.url);
const cjs = require('@ambient/amqp-context');

test('the ESM and CJS builds share requestContext and read each other’s headers', () => {
  assert.equal(core.requestContext, require('@ambient/core').requestContext);
  const { headers } = core.requestContext.run({ requestId: 'req-dual' }, () => esm.publishOptions());
  const message = { fields: { routingKey: 'q' }, properties: { headers } };
  assert.equal(cjs.consumeHandler(() => core.requestContext.get('causationId'))(message), 'req-dual');
});

// Plain `node --test` on the built package, outside jest: the ESM and CJS builds share one requestContext, and
// headers published through one build are read through the other.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import * as esm from '@ambient/amqp-context';

const cjs = createRequire(import.meta.url)('@ambient/amqp-context');

test('the ESM and CJS builds share requestContext and read each other’s headers', () => {
  assert.equal(esm.requestContext, cjs.requestContext);
  const { headers } = esm.requestContext.run({ requestId: 'req-dual' }, () => esm.publishOptions());
  const message = { fields: { routingKey: 'q' }, properties: { headers } };
  assert.equal(cjs.consumeHandler(() => esm.requestContext.get('causationId'))(message), 'req-dual');
});

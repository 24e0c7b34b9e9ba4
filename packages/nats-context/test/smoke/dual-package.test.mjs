// Plain `node --test` on the built package, outside jest: the ESM and CJS builds share one requestContext, and
// headers set through one build are read through the other.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { headers, MsgHdrsImpl } from 'nats';
import * as esm from '@ambient/nats-context';
import * as core from '@ambient/core';

const require = createRequire(import.meta.url);
const cjs = require('@ambient/nats-context');

test('the ESM and CJS builds share requestContext and read each other’s headers', () => {
  assert.equal(core.requestContext, require('@ambient/core').requestContext);
  const sent = core.requestContext.run({ requestId: 'req-dual' }, () => esm.messageHeaders(headers()));
  const message = { subject: 'orders', headers: MsgHdrsImpl.decode(sent.encode()) };
  assert.equal(cjs.messageHandler(() => core.requestContext.get('causationId'))(message), 'req-dual');
});

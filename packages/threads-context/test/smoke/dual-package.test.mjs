// Plain `node --test` on the built package, outside jest: the ESM and CJS builds share one requestContext, and
// a task wrapped through one build is run by the other.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import * as esm from '@ambient/threads-context';
import * as core from '@ambient/core';

const require = createRequire(import.meta.url);
const cjs = require('@ambient/threads-context');

test('the ESM and CJS builds share requestContext and run each other’s tasks', () => {
  assert.equal(core.requestContext, require('@ambient/core').requestContext);
  const task = core.requestContext.run({ requestId: 'req-dual' }, () => esm.contextTask(1));
  const handler = cjs.taskHandler(() => core.requestContext.get('causationId'));
  assert.equal(handler(structuredClone(task)), 'req-dual');
});

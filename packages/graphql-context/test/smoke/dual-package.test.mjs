// Plain `node --test` on the built package, outside jest: the ESM and CJS builds share one requestContext and one
// graphql tracing, and an operation entered through one build is read through the other.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import * as esm from '@ambient/graphql-context';
import { requestContext } from '@ambient/core';

const require = createRequire(import.meta.url);
const cjs = require('@ambient/graphql-context');

test('the ESM and CJS builds share the tracing and the operation they enter', () => {
  const tracing = esm.traceGraphQLOperations();
  try {
    assert.equal(cjs.traceGraphQLOperations(), tracing);
  } finally {
    tracing.dispose();
  }
  const operation = requestContext.run({ requestId: 'req-dual' }, () =>
    cjs.runInOperation({ name: 'GetUser', type: 'query' }, () => require('@ambient/core').requestContext.snapshot()),
  );
  assert.deepEqual(operation, { requestId: 'req-dual', operation: { name: 'GetUser', type: 'query' } });
  assert.throws(() => esm.runInOperation({ type: 'nope' }, () => 1), { code: 'ERR_AMBIENT_GRAPHQL_INVALID_ARGUMENT' });
});

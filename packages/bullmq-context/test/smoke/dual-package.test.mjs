// Plain `node --test` on the built package, outside jest: the ESM and CJS builds share one requestContext, and a
// job's metadata written through one build is read through the other.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import * as esm from '@ambient/bullmq-context';
import * as core from '@ambient/core';

const require = createRequire(import.meta.url);
const cjs = require('@ambient/bullmq-context');

test('the ESM and CJS builds share requestContext and read each other’s metadata', () => {
  assert.equal(core.requestContext, require('@ambient/core').requestContext);
  const producer = esm.bullmqTelemetry({ opentelemetry: false });
  const consumer = cjs.bullmqTelemetry({ opentelemetry: false });
  const metadata = core.requestContext.run({ requestId: 'req-dual' }, () =>
    producer.contextManager.getMetadata(producer.contextManager.active()),
  );
  const seen = cjs.bullmqProcessor(() => core.requestContext.get('causationId'))({
    name: 'send',
    id: '1',
    opts: { telemetry: { metadata } },
  });
  assert.equal(seen, 'req-dual');
  assert.equal(typeof consumer.tracer.startSpan, 'function');
});

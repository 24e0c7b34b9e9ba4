// Plain `node --test` on the built package, outside jest: the ESM and CJS builds keep OpenTelemetry's context
// in the one storage cell, and make requestContext report the active span.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { requestContext } from '@ambient/core';
import * as esm from '@ambient/opentelemetry-context';

const cjs = createRequire(import.meta.url)('@ambient/opentelemetry-context');
const spanContext = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: 1 };

for (const [name, build] of [
  ['ESM', esm],
  ['CJS', cjs],
]) {
  test(`${name} build: the context survives an await, and requestContext reports the active span`, async () => {
    const manager = new build.AmbientContextManager().enable();
    try {
      const ctx = trace.setSpanContext(ROOT_CONTEXT, spanContext);
      const seen = await requestContext.run({ requestId: 'r', traceId: 'incoming' }, () =>
        manager.with(ctx, async () => {
          await new Promise((resolve) => setTimeout(resolve, 1));
          return [manager.active(), requestContext.get('traceId'), requestContext.get('spanId')];
        }),
      );
      assert.deepEqual(seen, [ctx, spanContext.traceId, spanContext.spanId]);
      assert.equal(manager.active(), ROOT_CONTEXT);
    } finally {
      manager.disable();
    }
  });
}

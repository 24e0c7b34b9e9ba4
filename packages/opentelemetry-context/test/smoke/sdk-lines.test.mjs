// AmbientContextManager on the OpenTelemetry lines users run: the 2.x SDK of this workspace (with
// @opentelemetry/api 1.9) and the 3.x SDK (@opentelemetry/sdk-trace 3, api 1.10, Node >= 22.15), installed
// apart in tools/opentelemetry-sdk3 because the 2.x packages need api < 1.10. attach() (api 1.10) is checked
// with the same cases on OpenTelemetry's own 3.x manager (the 3.x SimpleSpanProcessor takes an options object), the control for the cases themselves.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { attachCases } from './attach-cases.mjs';
import { requireSdk3, sdk3Skip } from './sdk3.mjs';

const require = createRequire(import.meta.url);
const { AmbientContextManager } = require('@ambient/opentelemetry-context');
const { requestContext } = require('@ambient/core');

async function runCases(t, api, create) {
  for (const [name, body] of Object.entries(attachCases(api))) {
    await t.test(name, async () => {
      const manager = create().enable();
      try {
        await body(manager);
      } finally {
        manager.disable();
      }
    });
  }
}

test('attach() on AmbientContextManager with the workspace api', async (t) => {
  await runCases(t, require('@opentelemetry/api'), () => new AmbientContextManager());
});

// Skipped only on Node below 22.15 (sdk3.mjs's sdk3Skip says why); the Node matrix runs it on every CI run.
test('SDK 3.x: attach() cases on the control and on AmbientContextManager', { skip: sdk3Skip }, async (t) => {
  const { api, hooks } = requireSdk3();
  assert.equal(typeof api.context.attach, 'function', '@opentelemetry/api 1.10 has context.attach');
  await t.test('control: AsyncLocalStorageContextManager 3.x', (t) =>
    runCases(t, api, () => new hooks.AsyncLocalStorageContextManager()),
  );
  await t.test('AmbientContextManager', (t) => runCases(t, api, () => new AmbientContextManager()));
});

// Skipped only on Node below 22.15 (sdk3.mjs's sdk3Skip says why); the Node matrix runs it on every CI run.
test('SDK 3.x: spans, request context and context.attach() through the global API', { skip: sdk3Skip }, async () => {
  const { api, sdk } = requireSdk3();
  const exporter = new sdk.InMemorySpanExporter();
  const provider = new sdk.TracerProvider({ spanProcessors: [new sdk.SimpleSpanProcessor({ exporter })] });
  const manager = new AmbientContextManager().enable();
  assert.equal(api.context.setGlobalContextManager(manager), true);
  assert.equal(api.trace.setGlobalTracerProvider(provider), true);
  try {
    const tracer = api.trace.getTracer('ambient-sdk3');
    const seen = await requestContext.run({ requestId: 'req-sdk3' }, () =>
      tracer.startActiveSpan('parent', async (parent) => {
        await new Promise((resolve) => setImmediate(resolve));
        const child = tracer.startSpan('child');
        const token = api.context.attach(api.trace.setSpan(api.context.active(), child));
        const inAttach = [requestContext.get('spanId'), requestContext.get('requestId')];
        token.dispose();
        child.end();
        parent.end();
        return {
          parent: parent.spanContext(),
          child: child.spanContext(),
          inAttach,
          after: requestContext.get('spanId'),
        };
      }),
    );
    assert.deepEqual(seen.inAttach, [seen.child.spanId, 'req-sdk3']);
    assert.equal(seen.after, seen.parent.spanId);
    const spans = exporter.getFinishedSpans();
    assert.deepEqual(
      spans.map((span) => span.name),
      ['child', 'parent'],
    );
    assert.equal(spans[0].parentSpanContext?.spanId, seen.parent.spanId);
    assert.equal(spans[0].spanContext().traceId, seen.parent.traceId);
  } finally {
    api.trace.disable();
    api.context.disable();
    await provider.shutdown();
  }
});

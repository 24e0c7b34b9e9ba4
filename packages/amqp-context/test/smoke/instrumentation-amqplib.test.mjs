// With @opentelemetry/instrumentation-amqplib loaded too (issue #15), on the real RabbitMQ at 127.0.0.1:5672: a
// publisher and a consumer, each in a process of its own with the OpenTelemetry SDK on AmbientContextManager and
// the instrumentation registered before amqplib is required (it patches through require hooks, which jest's
// module registry bypasses: open-telemetry/opentelemetry-js#3735). The delivered message carries one
// `traceparent`, the instrumentation's publish span, beside our ids; the consumer's run has the publisher as
// causation, the publisher's trace, and the instrumentation's consumer span active around the handler.
// amqplib 0.10, installed here under the alias `amqplib010`, is not covered: the instrumentation hooks the module
// named `amqplib`, and require-in-the-middle names a module by its folder, so the alias is never patched (ours is
// then the only traceparent, as in publish-to-consumer.test.mjs).
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { test } from 'node:test';
import { serviceSkip } from '../../../../scripts/services.mjs';

// Skipped only where the service is not reachable on 127.0.0.1, with a loud warning; under CI=true serviceSkip
// throws instead, so CI always runs it.
const skip = await serviceSkip('rabbitmq');
const uuidv7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const producerKind = 3;
const consumerKind = 4;
const count = 40;

/** The first IPC message of `child` that has `key`. */
function reported(child, key) {
  return new Promise((resolve, reject) => {
    const onMessage = (message) => {
      if (message?.[key] === undefined) return;
      child.off('message', onMessage);
      resolve(message[key]);
    };
    child.on('message', onMessage);
    child.once('exit', (code) => reject(new Error(`${key}: the process exited (${code}) before reporting`)));
  });
}

// `skip` (above): set only where RabbitMQ is not reachable on 127.0.0.1; under CI=true serviceSkip throws.
test(
  'with instrumentation-amqplib: one traceparent, ids and spans agree across processes',
  { skip, timeout: 60_000 },
  async (t) => {
    const queue = `ambient-otel-${randomUUID()}`;
    const env = { ...process.env, QUEUE: queue, COUNT: String(count) };
    const consumer = fork(new URL('./fixtures/instrumented-consumer.mjs', import.meta.url), { env });
    t.after(() => consumer.connected && consumer.kill());
    const handled = new Map();
    let allHandled;
    const done = new Promise((resolve) => (allHandled = resolve));
    consumer.on('message', (message) => {
      if (message?.handled === undefined) return;
      handled.set(message.handled.body.n, message.handled);
      if (handled.size === count + 1) allHandled();
    });
    await once(consumer, 'message'); // ready: the queue exists

    const producer = fork(new URL('./fixtures/instrumented-producer.mjs', import.meta.url), { env });
    const [published, producerSpans] = await Promise.all([
      reported(producer, 'published'),
      reported(producer, 'spans'),
    ]);
    await done;
    const consumerSpans = reported(consumer, 'spans');
    consumer.send('stop');
    const spans = [...producerSpans, ...(await consumerSpans)];
    const byId = new Map(spans.map((span) => [span.spanId, span]));
    const childrenOf = (parent, kind) =>
      spans.filter((span) => span.parentSpanId === parent.spanId && span.kind === kind);

    await t.test('the message carries one traceparent, the publish span, and our ids beside it', () => {
      for (const { n, via, ours, request } of published) {
        const { headers } = handled.get(n);
        const [publish, ...more] = childrenOf(request, producerKind);
        assert.ok(publish, `request ${n} (${via}): the instrumentation made a publish span under the request's span`);
        assert.deepEqual(more, [], `request ${n} (${via}): one publish span, not one per patched publish`);
        assert.deepEqual(
          Object.keys(headers).filter((key) => /^traceparent$/i.test(key)),
          ['traceparent'],
          'one traceparent header',
        );
        assert.equal(headers.traceparent, `00-${request.traceId}-${publish.spanId}-01`, 'it names the publish span');
        // publishOptions() had put its own, naming the request's span: the instrumentation's replaced it.
        assert.equal(ours.split('-').slice(1, 3).join('-'), `${request.traceId}-${request.spanId}`);
        assert.equal(headers['x-request-id'], `req-${n}`);
        assert.equal(headers['x-correlation-id'], n % 3 === 0 ? `chain-${n}` : `req-${n}`);
      }
    });

    await t.test("the consumer's run: the publisher as causation, its trace, the consumer span active", () => {
      for (const { n, via, request } of published) {
        const { scope, active, afterAwait, inOwnSpan, headers } = handled.get(n);
        const publishSpanId = headers.traceparent.split('-')[2];
        const [consumed, ...more] = childrenOf(byId.get(publishSpanId), consumerKind);
        assert.ok(consumed, `message ${n} (${via}): the instrumentation made a consumer span under the publish span`);
        assert.deepEqual(more, []);
        assert.equal(consumed.name, `${queue} process`);
        assert.match(scope.requestId, uuidv7);
        assert.equal(scope.causationId, `req-${n}`);
        assert.equal(scope.correlationId, n % 3 === 0 ? `chain-${n}` : `req-${n}`);
        assert.deepEqual(scope.job, { name: queue, id: `m-${n}`, system: 'amqp', queue, attempt: 1 });
        const consumerSpan = { traceId: request.traceId, spanId: consumed.spanId };
        assert.deepEqual(active, consumerSpan, 'the consumer span is active in the handler');
        assert.deepEqual({ traceId: scope.traceId, spanId: scope.spanId }, consumerSpan, 'requestContext reports it');
        assert.deepEqual(afterAwait, { ...consumerSpan, active: consumerSpan }, 'and still after an await');
        const own = byId.get(inOwnSpan.own);
        assert.equal(own.parentSpanId, consumed.spanId, "the handler's span is a child of the consumer span");
        assert.deepEqual(inOwnSpan, { traceId: request.traceId, spanId: own.spanId, own: own.spanId });
      }
    });

    await t.test('a message published outside any request: the trace continues, the chain starts fresh', () => {
      const { scope, active, headers } = handled.get('plain');
      assert.equal(headers['x-request-id'], undefined);
      assert.equal(headers['x-correlation-id'], undefined);
      const [, traceId, publishSpanId] = headers.traceparent.split('-');
      const publish = byId.get(publishSpanId);
      assert.equal(publish.kind, producerKind);
      assert.equal(publish.parentSpanId, undefined, 'a publish span with no request around it is a root');
      const [consumed] = childrenOf(publish, consumerKind);
      assert.equal(scope.causationId, undefined);
      assert.equal(scope.correlationId, undefined);
      assert.deepEqual(active, { traceId, spanId: consumed.spanId });
      assert.equal(scope.traceId, traceId);
    });
  },
);

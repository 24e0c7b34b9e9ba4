// With the OpenTelemetry SDK registered in both processes (AmbientContextManager, in-memory exporters): BullMQ's
// producer and consumer spans are real spans of one trace, a span the processor starts is a child of the
// consumer span, the worker's log lines carry the consumer's trace, and a scheduler's run links to its producer
// instead of joining its trace (taskforcesh/bullmq#2942). Real Redis at 127.0.0.1:6379, the worker forked.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { connection, post, startProducer, startWorker } from './harness.mjs';
import { serviceSkip } from '../../../../scripts/services.mjs';

const require = createRequire(import.meta.url);
// Skipped only where the service is not reachable on 127.0.0.1, with a loud warning; under CI=true serviceSkip
// throws instead, so CI always runs it.
const skip = await serviceSkip('redis');

for (const manager of ['ambient', 'stock']) {
  // `skip` (above): set only where Redis is not reachable on 127.0.0.1; under CI=true serviceSkip throws.
  test(
    `producer and consumer spans across processes (${manager} context manager)`,
    { skip, timeout: 120_000 },
    async (t) => {
      const {
        NodeTracerProvider,
        SimpleSpanProcessor,
        InMemorySpanExporter,
      } = require('@opentelemetry/sdk-trace-node');
      const { AmbientContextManager } = require('@ambient/opentelemetry-context');
      const api = require('@opentelemetry/api');
      const exporter = new InMemorySpanExporter();
      const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
      provider.register(manager === 'ambient' ? { contextManager: new AmbientContextManager() } : {});
      const { FlowProducer, Queue } = require('bullmq');
      const { bullmqTelemetry } = require('@ambient/bullmq-context');
      const name = `ambient-otel-${randomUUID()}`;
      const telemetry = bullmqTelemetry();
      const queue = new Queue(name, { connection, telemetry });
      const flows = new FlowProducer({ connection, telemetry });
      const worker = await startWorker(name, { otel: manager });
      const producer = await startProducer({ queue, flows });
      try {
        const sent = await Promise.all(Array.from({ length: 20 }, (_, i) => post(producer.port, '/job', { n: i })));
        const scheduleId = `tick-${randomUUID()}`;
        await post(producer.port, '/schedule', { id: scheduleId });
        await worker.completions(20 + 2);
        await queue.removeJobScheduler(scheduleId);
        const { lines, spans: workerSpans } = await worker.stop();
        assert.deepEqual(worker.problems, []);
        const producerSpans = exporter.getFinishedSpans().filter((span) => span.name.startsWith('add '));

        const consumers = new Map(
          workerSpans.filter((span) => span.name === `process ${name}`).map((span) => [span.spanId, span]),
        );
        const processing = lines.filter((line) => line.msg === 'processing' && line.jobName === 'send');

        await t.test('each consumer span is a child of its producer span, in its trace', () => {
          assert.equal(consumers.size, 22);
          const sends = producerSpans.filter((span) => span.name === `add ${name}.send`);
          assert.equal(sends.length, 20);
          for (const producerSpan of sends) {
            const { traceId, spanId } = producerSpan.spanContext();
            const children = [...consumers.values()].filter((span) => span.parentSpanId === spanId);
            assert.equal(children.length, 1);
            assert.equal(children[0].traceId, traceId);
          }
          assert.equal(new Set(sends.map((span) => span.spanContext().traceId)).size, 20, 'one trace per request');
        });

        await t.test("a span the processor starts is a child of the run's consumer span", () => {
          const work = workerSpans.filter((span) => span.name === 'work');
          assert.equal(work.length, 22);
          for (const span of work) assert.ok(consumers.has(span.parentSpanId), 'work is under a consumer span');
        });

        if (manager === 'ambient') {
          await t.test("log lines carry the active span's ids: the processor's span, else the consumer's", () => {
            const workIds = new Set(
              workerSpans.filter((span) => span.name === 'work').map((span) => `${span.traceId}/${span.spanId}`),
            );
            const inside = lines.filter((line) => line.msg === 'inside a span of the processor');
            assert.equal(inside.length, 22);
            for (const line of inside) assert.ok(workIds.has(`${line.traceId}/${line.spanId}`));
            for (const line of processing) {
              const consumer = consumers.get(line.spanId);
              assert.ok(consumer, 'the processing line names its consumer span');
              assert.equal(line.traceId, consumer.traceId);
              assert.equal(line.causationId, line.expected.requestId);
            }
          });
        } else {
          // The SDK's own context manager is invisible to Ambient: the run's scope holds the trace it was given, the
          // producer span as its parent, and spans started inside it do not reach log lines (README, OpenTelemetry).
          await t.test("log lines carry the run's trace and the producer span, the parent of its consumer span", () => {
            const inside = lines.filter((line) => line.msg === 'inside a span of the processor');
            assert.equal(inside.length, 22);
            // The two scheduler runs are linked, not children: their lines hold no trace (the next case).
            const sendsInside = inside.filter((line) => line.job.name === 'send');
            assert.equal(sendsInside.length, 20);
            for (const line of [...processing, ...sendsInside]) {
              const [consumer] = [...consumers.values()].filter((span) => span.parentSpanId === line.spanId);
              assert.ok(consumer, 'the line names the producer span of its run');
              assert.equal(line.traceId, consumer.traceId);
            }
            for (const line of processing) assert.equal(line.causationId, line.expected.requestId);
          });
        }
        assert.equal(new Set(sent.map((response) => response.requestId)).size, 20);

        await t.test("a scheduler's runs start traces of their own, linked to the producer span", () => {
          const [schedulerProducer] = producerSpans.filter((span) => span.name === `add ${name}.tick`);
          assert.ok(schedulerProducer, 'the scheduler was made inside the request, with a producer span');
          const { traceId: producerTrace, spanId: producerSpan } = schedulerProducer.spanContext();
          const tickLines = lines.filter((line) => line.msg === 'processing' && line.jobName === 'tick');
          assert.equal(tickLines.length, 2);
          const ticks = [...consumers.values()].filter((span) => span.links.length > 0);
          assert.equal(ticks.length, 2);
          for (const consumer of ticks) {
            assert.equal(consumer.parentSpanId, undefined);
            assert.notEqual(consumer.traceId, producerTrace);
            assert.deepEqual(consumer.links, [producerSpan]);
          }
          for (const line of tickLines) {
            if (manager === 'ambient') assert.ok(ticks.some((span) => span.spanId === line.spanId));
            else assert.equal(line.traceId, undefined, 'a linked run holds none of the producer trace');
          }
        });
      } finally {
        await producer.close();
        await queue.obliterate({ force: true }).catch(() => undefined);
        await queue.close();
        await flows.close();
        await provider.shutdown();
        // The next case registers again, in this same process.
        api.trace.disable();
        api.context.disable();
        api.propagation.disable();
      }
    },
  );
}

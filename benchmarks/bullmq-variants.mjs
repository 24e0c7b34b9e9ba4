// The variants the BullMQ benchmarks compare (bullmq.bench.mjs, lab/bullmq-worker.mjs), each a (producer, worker,
// processor wrapper) triple:
//   none                     jobs added with bullmqTelemetry() (so every variant's jobs are the same bytes),
//                            a Worker with no telemetry: nothing reads the metadata.
//   no-op Telemetry          a Telemetry that does nothing, so what remains is BullMQ's own trace() around every
//                            operation: what any integration through its telemetry option pays first.
//   hand-written ALS         the processor wrapped in AsyncLocalStorage#run with a fresh id and the producer's id
//                            parsed from the metadata: the least an ALS-based wrapper of this design does, by
//                            hand.
//   hand-written Telemetry   the same scope opened through a Telemetry that does nothing else: this design through
//                            BullMQ's telemetry option, by hand ("the floor" in benchmarks/README.md; one
//                            design written by hand, not a lower bound for every library).
//   bullmq-otel              bullmq-otel on both sides.
//   ambient ids only         bullmqTelemetry({ opentelemetry: false }) on both sides.
//   ambient bullmqProcessor  no telemetry on the Worker; the processor wrapped in bullmqProcessor(processor).
//   ambient + OpenTelemetry  bullmqTelemetry() on both sides.
//
// The OpenTelemetry SDK (BasicTracerProvider, AmbientContextManager, a no-op exporter) is registered for the whole
// run, with the W3C propagator that bullmq-otel's metadata needs, so every variant pays for the context manager
// alike.
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * Everything the variants share: the OpenTelemetry SDK, registered once for the whole run (in every process that
 * calls it), and the variants.
 */
export function setUp() {
  const { AsyncLocalStorage } = require('node:async_hooks');
  const { BullMQOtel } = require('bullmq-otel');
  const api = require('@opentelemetry/api');
  const { BasicTracerProvider, SimpleSpanProcessor } = require('@opentelemetry/sdk-trace-base');
  const { W3CTraceContextPropagator } = require('@opentelemetry/core');
  const { AmbientContextManager } = require('@ambient/opentelemetry-context');
  // runInJobContext(job, fn): bullmqProcessor's name and shape before the packages were restructured.
  const { bullmqTelemetry, bullmqProcessor, runInJobContext } = require('@ambient/bullmq-context');
  const noExport = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => undefined };
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(noExport)] });
  api.context.setGlobalContextManager(new AmbientContextManager().enable());
  api.trace.setGlobalTracerProvider(provider);
  // As an SDK setup registers it (NodeSDK does): bullmq-otel writes and reads its traceparent through it.
  api.propagation.setGlobalPropagator(new W3CTraceContextPropagator());

  const idsOnly = bullmqTelemetry({ opentelemetry: false });
  const withOtel = bullmqTelemetry();
  const bullmqOtel = new BullMQOtel('bench');
  const als = new AsyncLocalStorage();
  const handWritten = (processor) => (job) =>
    als.run({ requestId: randomUUID(), causationId: causationOf(job.opts.telemetry?.metadata) }, processor, job);
  const same = (processor) => processor;
  const variants = {
    none: { producer: idsOnly, worker: undefined, wrap: same },
    'no-op Telemetry': { producer: idsOnly, worker: noopTelemetry(), wrap: same },
    'hand-written ALS': { producer: idsOnly, worker: undefined, wrap: handWritten },
    'hand-written Telemetry': { producer: idsOnly, worker: handWrittenTelemetry(als), wrap: same },
    'bullmq-otel': { producer: bullmqOtel, worker: bullmqOtel, wrap: same },
    'ambient ids only': { producer: idsOnly, worker: idsOnly, wrap: same },
    'ambient bullmqProcessor': {
      producer: idsOnly,
      worker: undefined,
      wrap: bullmqProcessor ?? ((processor) => (job) => runInJobContext(job, () => processor(job))),
    },
    'ambient + OpenTelemetry': { producer: withOtel, worker: withOtel, wrap: same },
  };
  // BULLMQ_VARIANTS=name,name: only those (with `none`, every ratio's reference), for a profile of one of them.
  const chosen = process.env.BULLMQ_VARIANTS?.split(',');
  const kept = Object.entries(variants).filter(
    ([name]) => chosen === undefined || name === 'none' || chosen.includes(name),
  );
  return { variants: Object.fromEntries(kept), shutdown: () => provider.shutdown() };
}

/** A span that records nothing; setSpanOnContext returns what `onContext` makes of the context it is given. */
function silentSpan(onContext) {
  return {
    setSpanOnContext: onContext,
    setAttribute() {},
    setAttributes() {},
    addEvent() {},
    recordException() {},
    end() {},
  };
}

/** BullMQ's Telemetry interface, doing nothing: what BullMQ's trace() costs by itself. */
function noopTelemetry() {
  const context = {};
  const span = silentSpan(() => context);
  return {
    tracer: { startSpan: () => span },
    contextManager: {
      active: () => context,
      root: () => context,
      with: (_context, fn) => fn(),
      getMetadata: () => '',
      fromMetadata: () => context,
    },
  };
}

/** The producer's request id in a job's metadata, trusted as a hand-written wrapper trusts it. */
function causationOf(metadata) {
  try {
    return JSON.parse(metadata ?? '{}')['x-request-id'];
  } catch {
    return undefined;
  }
}

/**
 * The hand-written wrapper's scope, opened through BullMQ's Telemetry instead of around the processor: a no-op
 * Telemetry whose consumer context (the one made from a job's metadata) runs its callback in the scope. What this
 * design (parse the metadata, a fresh id, one AsyncLocalStorage#run) costs through BullMQ's hook when written by
 * hand, with nothing checked.
 */
function handWrittenTelemetry(als) {
  const none = {};
  const span = silentSpan((context) => context);
  return {
    tracer: { startSpan: () => span },
    contextManager: {
      active: () => none,
      root: () => none,
      with: (context, fn) =>
        context.metadata === undefined
          ? fn()
          : als.run({ requestId: randomUUID(), causationId: causationOf(context.metadata) }, fn),
      getMetadata: () => '',
      fromMetadata: (_active, metadata) => ({ metadata }),
    },
  };
}

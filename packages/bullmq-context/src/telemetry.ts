import { requestContext, runInRoot, type Context, type JobInfo } from '@ambient/core';
import { readOptions, rule, rules, scopeObject, type OptionShape } from '@ambient/core/internal';
import { isValidRequestId, type JobRun } from '@ambient/correlation';
import {
  openRun,
  registeredOpenTelemetry,
  RemoteSpan,
  type OtelContext,
  type OtelSpan,
  type OtelSpanContext,
  type OtelTracer,
  type RegisteredOpenTelemetry,
} from '@ambient/correlation/internal';
import type {
  Attributes,
  AttributeValue,
  ContextManager,
  Exception,
  Meter,
  Span,
  SpanOptions,
  Telemetry,
  Time,
  Tracer,
} from 'bullmq';
import { errors } from './errors.js';
import { metadataForNewJob, metadataForRetry, noMetadata, readMetadata, type InboundJob } from './metadata.js';

export interface BullmqTelemetryOptions {
  /**
   * Whether a job's run continues its producer's trace (`false`: the run's span is a child of the producer's)
   * or starts a trace of its own that links to it (`true`). Default `'schedulers'`: jobs of a job scheduler
   * or repeatable job link, every other job continues, so a schedule does not grow one endless trace
   * (taskforcesh/bullmq#2942). Causation and correlation ids are kept either way.
   */
  link?: boolean | 'schedulers';
  /** Real spans when an OpenTelemetry SDK is registered (default `true`); `false`: ids only. */
  opentelemetry?: boolean;
  /** The OpenTelemetry tracer's name; default `@ambient/bullmq-context`. */
  tracerName?: string;
  /** Makes each run's request id; default: a time-ordered UUIDv7. */
  generateRequestId?: () => string;
  /**
   * BullMQ's job metrics (completed and failed counts, durations) go to this meter, as with bullmq-otel: for
   * one, `new BullMQOtel({ enableMetrics: true }).meter`. Default: none, as in BullMQ.
   */
  meter?: Meter;
}

const optionShape: OptionShape<BullmqTelemetryOptions> = {
  link: rule(
    "a boolean or 'schedulers'",
    (value): value is boolean | 'schedulers' => typeof value === 'boolean' || value === 'schedulers',
  ),
  opentelemetry: rules.boolean,
  tracerName: rules.nonEmptyString,
  generateRequestId: rules.function('() => string'),
  meter: rule(
    "BullMQ's Meter (createCounter, createHistogram, createGauge)",
    (value): value is Meter =>
      typeof value === 'object' &&
      value !== null &&
      ['createCounter', 'createHistogram', 'createGauge'].every(
        (method) => typeof (value as Record<string, unknown>)[method] === 'function',
      ),
  ),
};

// BullMQ's SpanKind values (they are OpenTelemetry's), compared as numbers so that nothing of bullmq is loaded.
const kindInternal = 0;
const kindConsumer = 4;

// BullMQ's attribute names (enums/telemetry-attributes.ts) read from the consumer's span.
const attributeQueueName = 'bullmq.queue.name';
const attributeJobName = 'bullmq.job.name';
const attributeJobId = 'bullmq.job.id';

/** Job-scheduler and repeatable-job runs have ids `repeat:<scheduler>:<time>` (job-scheduler.ts). */
const isScheduledJobId = (id: unknown): boolean => typeof id === 'string' && id.startsWith('repeat:');

/** The registered OpenTelemetry, with this telemetry's tracer. */
interface Otel extends RegisteredOpenTelemetry {
  readonly tracer: OtelTracer;
}

/** The registered OpenTelemetry, looked up on each call (an SDK may register after the queue is made). */
function otelFinder(tracerName: string): () => Otel | undefined {
  let found: { registered: RegisteredOpenTelemetry; otel: Otel } | undefined;
  return () => {
    const registered = registeredOpenTelemetry();
    if (registered === undefined) return undefined;
    if (found?.registered !== registered) {
      found = { registered, otel: { ...registered, tracer: registered.getTracer(tracerName) } };
    }
    return found.otel;
  };
}

interface Settings {
  readonly link: boolean | 'schedulers';
  readonly otel: () => Otel | undefined;
  readonly generateRequestId: (() => string) | undefined;
}

/**
 * BullMQ's Context under this telemetry: opaque to BullMQ, which hands it back to the context manager. It holds
 * OpenTelemetry's context where there is one, what a consumed job's metadata said, and the span it belongs to.
 */
export class BullmqContext {
  constructor(
    readonly otel: OtelContext | undefined,
    readonly inbound: InboundJob | undefined,
    readonly span: BullmqSpan | undefined,
    readonly detached: boolean,
  ) {}
}

/** Without OpenTelemetry, BullMQ's active and root contexts carry nothing: one object each, not one a call. */
const noContext = Object.freeze(new BullmqContext(undefined, undefined, undefined, false));
const rootContext = Object.freeze(new BullmqContext(undefined, undefined, undefined, true));

/**
 * The job a run belongs to, for the metadata of its retry: in the run's requestContext scope under a key of ours
 * (a symbol: no log line or carrier reads it). A WeakMap by scope cost each job an ephemeron for the collector.
 */
const kInbound = Symbol('ambient.bullmq.inbound');
const runScope = requestContext as unknown as Context<{ [kInbound]: InboundJob }>;

/**
 * BullMQ's Telemetry (bullmq src/interfaces/telemetry.ts), for the `telemetry` option of Queue, Worker and
 * FlowProducer: a job added inside a request carries it (contextCarrier()) in `opts.telemetry.metadata`, and
 * each run of it opens a fresh requestContext scope from it (runJob). With an OpenTelemetry SDK registered,
 * BullMQ's producer and consumer spans are real spans of that trace.
 *
 *     const telemetry = bullmqTelemetry();
 *     const queue = new Queue('mail', { connection, telemetry });
 *     new Worker('mail', processor, { connection, telemetry });
 */
export function bullmqTelemetry(options?: BullmqTelemetryOptions): Telemetry<BullmqContext> {
  const given = readOptions<BullmqTelemetryOptions>(options, optionShape, {
    where: 'bullmqTelemetry(options)',
    errors,
  });
  const tracerName = given.tracerName ?? '@ambient/bullmq-context';
  const settings: Settings = {
    link: given.link ?? 'schedulers',
    otel: given.opentelemetry === false ? () => undefined : otelFinder(tracerName),
    generateRequestId: given.generateRequestId,
  };
  const telemetry: Telemetry<BullmqContext> = {
    tracer: new BullmqTracer(settings),
    contextManager: new BullmqContextManager(settings),
  };
  if (given.meter !== undefined) telemetry.meter = given.meter;
  return telemetry;
}

class BullmqContextManager implements ContextManager<BullmqContext> {
  readonly #settings: Settings;
  /** The last active() result: the same object while OpenTelemetry's active context is the same, as BullMQ expects. */
  #active: BullmqContext | undefined;

  constructor(settings: Settings) {
    this.#settings = settings;
  }

  active(): BullmqContext {
    const otel = this.#settings.otel();
    if (otel === undefined) return noContext;
    const current = otel.active();
    if (this.#active?.otel !== current) this.#active = new BullmqContext(current, undefined, undefined, false);
    return this.#active;
  }

  /** For BullMQ's background loops (the stalled-jobs checker): nothing of whatever started them. */
  root(): BullmqContext {
    const otel = this.#settings.otel();
    return otel === undefined
      ? rootContext
      : new BullmqContext(otel.withoutSpan(otel.active()), undefined, undefined, true);
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- BullMQ's own signature
  with<A extends (...args: any[]) => any>(context: BullmqContext, fn: A): ReturnType<A> {
    const otel = this.#settings.otel();
    const span = context.span;
    if (span !== undefined && span.kind === kindConsumer) {
      return this.#runConsumed(context, span, otel, fn) as ReturnType<A>;
    }
    // A worker's background loop: from the root, never in the context of the code that started the worker.
    if (context.detached) return runInRoot(() => withOtel(otel, context.otel, fn)) as ReturnType<A>;
    return withOtel(otel, context.otel, fn) as ReturnType<A>;
  }

  getMetadata(context: BullmqContext): string {
    // Read without reporting a miss: a job is often added outside any request.
    const inbound = scopeObject(runScope)?.[kInbound];
    // Inside a run, an internal span's metadata is what BullMQ stores for the job's next attempt.
    if (inbound !== undefined && context.span?.kind === kindInternal) return metadataForRetry(inbound);
    const spanContext = context.span?.otelSpanIfStarted()?.spanContext();
    return metadataForNewJob(spanContext);
  }

  fromMetadata(activeContext: BullmqContext, metadata: string): BullmqContext {
    return new BullmqContext(activeContext.otel, readMetadata(metadata), undefined, false);
  }

  /** One run of a job: a fresh scope from the root, and the consumer span active in it. */
  #runConsumed(context: BullmqContext, span: BullmqSpan, otel: Otel | undefined, fn: () => unknown): unknown {
    const inbound = context.inbound ?? noMetadata;
    const queue = span.queueName();
    // BullMQ names the job (id, name) to its telemetry once the run starts, and never its attempt:
    // bullmqProcessor() around the processor adds it.
    const job: JobRun = {
      name: queue ?? span.name,
      system: 'bullmq',
      link: this.#settings.link === true,
      carrier: inbound.fields,
    };
    if (queue !== undefined) job.queue = queue;
    if (this.#settings.generateRequestId !== undefined) job.generateRequestId = this.#settings.generateRequestId;
    // Made here from BullMQ's names and metadata already read (readMetadata): opened without checking it again.
    return openRun(job, () => {
      runScope.set(kInbound, inbound);
      span.enterRun(inbound);
      if (otel === undefined) return fn();
      // From the root (openRun): the active context holds no span to remove first.
      return otel.with(otel.withSpan(otel.active(), span.asOtelSpan()), fn);
    });
  }
}

function withOtel(otel: Otel | undefined, context: OtelContext | undefined, fn: () => unknown): unknown {
  return otel === undefined || context === undefined ? fn() : otel.with(context, fn);
}

class BullmqTracer implements Tracer<BullmqContext> {
  readonly #settings: Settings;

  constructor(settings: Settings) {
    this.#settings = settings;
  }

  startSpan(name: string, options?: SpanOptions, context?: BullmqContext): BullmqSpan {
    return new BullmqSpan(name, options?.kind ?? kindInternal, context, this.#settings);
  }
}

/**
 * A BullMQ span, backed by an OpenTelemetry span where an SDK is registered. A consumer's OpenTelemetry span is
 * started only when BullMQ names the job (its first setAttributes inside the run): whether it continues the
 * producer's trace or links to it depends on whether the job came from a scheduler.
 */
export class BullmqSpan implements Span<BullmqContext> {
  readonly name: string;
  readonly kind: number;
  readonly #parent: BullmqContext | undefined;
  readonly #settings: Settings;
  #otelSpan: OtelSpan | undefined;
  /** A consumer's attributes set before its OpenTelemetry span starts, in order: applied when it does, and kept. */
  #pending: Attributes[] | undefined;
  #inbound: InboundJob | undefined;
  #jobId: unknown;
  #ended = false;

  constructor(name: string, kind: number, parent: BullmqContext | undefined, settings: Settings) {
    this.name = name;
    this.kind = kind;
    this.#parent = parent;
    this.#settings = settings;
    if (kind !== kindConsumer) {
      const otel = settings.otel();
      if (otel !== undefined) this.#otelSpan = otel.tracer.startSpan(name, { kind }, parent?.otel ?? otel.active());
    }
  }

  setSpanOnContext(context: BullmqContext): BullmqContext {
    const otel = this.#settings.otel();
    const otelContext =
      otel !== undefined && this.#otelSpan !== undefined
        ? otel.withSpan(context.otel ?? otel.active(), this.#otelSpan)
        : context.otel;
    return new BullmqContext(otelContext, context.inbound, this, false);
  }

  setAttribute(key: string, value: AttributeValue): void {
    this.setAttributes({ [key]: value });
  }

  setAttributes(attributes: Attributes): void {
    // BullMQ sets attributes several times on every span of every job: the common case returns first.
    if (this.kind !== kindConsumer) {
      this.#otelSpan?.setAttributes(attributes);
      return;
    }
    if (attributeJobId in attributes) this.#nameJob(attributes);
    if (this.#otelSpan !== undefined) this.#otelSpan.setAttributes(attributes);
    else (this.#pending ??= []).push(attributes);
  }

  addEvent(name: string, attributes?: Attributes): void {
    this.#started()?.addEvent(name, attributes);
  }

  recordException(exception: Exception, time?: Time): void {
    this.#started()?.recordException(exception, time);
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#started()?.end();
  }

  /** The queue, from BullMQ's attributes set before the run. */
  queueName(): string | undefined {
    const pending = this.#pending ?? [];
    // The last one set wins, as it does on a span.
    for (let i = pending.length - 1; i >= 0; i--) {
      if (attributeQueueName in pending[i]!) {
        const queue = pending[i]![attributeQueueName];
        return typeof queue === 'string' ? queue : undefined;
      }
    }
    return undefined;
  }

  /** Called as the run's scope opens: what the job's metadata said, for the OpenTelemetry span. */
  enterRun(inbound: InboundJob): void {
    this.#inbound = inbound;
  }

  otelSpanIfStarted(): OtelSpan | undefined {
    return this.#otelSpan;
  }

  /** What the run makes active for OpenTelemetry: this span, started on first use. */
  asOtelSpan(): OtelSpan {
    return new LazyOtelSpan(this);
  }

  /** The OpenTelemetry span, started now if it is a consumer's that waited to learn its job. */
  startedOtelSpan(): OtelSpan | undefined {
    return this.#started();
  }

  /** The job's name and id, from BullMQ's first attributes in the run: into the run's `job` field. */
  #nameJob(attributes: Attributes): void {
    const name = attributes[attributeJobName];
    const id = attributes[attributeJobId];
    this.#jobId = id;
    const job = requestContext.get('job');
    if (job === undefined || job.system !== 'bullmq') return;
    const named: { -readonly [K in keyof JobInfo]: JobInfo[K] } = { ...job };
    if (typeof name === 'string' && name !== '') named.name = name;
    if (typeof id === 'string' && isValidRequestId(id)) named.id = id;
    requestContext.set('job', named);
    // A scheduler's run links rather than continues: its trace ids are not the producer's.
    if (this.#links()) {
      for (const key of ['traceId', 'spanId', 'traceFlags', 'traceState'] as const) requestContext.set(key, undefined);
    }
  }

  #links(): boolean {
    const link = this.#settings.link;
    return link === true || (link === 'schedulers' && isScheduledJobId(this.#jobId));
  }

  /** The OpenTelemetry span, started now if it is a consumer's that waited to learn its job. */
  #started(): OtelSpan | undefined {
    if (this.#otelSpan !== undefined || this.kind !== kindConsumer) return this.#otelSpan;
    const otel = this.#settings.otel();
    if (otel === undefined) return undefined;
    // A root span ignores the span in its context, and withSpan replaces it: no withoutSpan first.
    const base = this.#parent?.otel ?? otel.active();
    const producer = (this.#inbound ?? this.#parent?.inbound)?.fields.traceParent;
    const kind = kindConsumer;
    if (producer === undefined) {
      this.#otelSpan = otel.tracer.startSpan(this.name, { kind, root: true }, base);
    } else {
      const producerContext = {
        traceId: producer.traceId,
        spanId: producer.parentId,
        traceFlags: Number.parseInt(producer.traceFlags, 16),
        isRemote: true,
      };
      this.#otelSpan = this.#links()
        ? otel.tracer.startSpan(this.name, { kind, root: true, links: [{ context: producerContext }] }, base)
        : otel.tracer.startSpan(this.name, { kind }, otel.withSpan(base, new RemoteSpan(producerContext)));
    }
    for (const attributes of this.#pending ?? []) this.#otelSpan.setAttributes(attributes);
    return this.#otelSpan;
  }
}

/** Stands in where no OpenTelemetry is registered any more: an invalid, non-recording span context. */
const noOtelSpan = new RemoteSpan({ traceId: '0'.repeat(32), spanId: '0'.repeat(16), traceFlags: 0 });

/** A consumer's span as OpenTelemetry sees it during the run: the real span, started on first use. */
class LazyOtelSpan implements OtelSpan {
  readonly #owner: BullmqSpan;

  constructor(owner: BullmqSpan) {
    this.#owner = owner;
  }

  spanContext(): OtelSpanContext {
    return this.#real().spanContext();
  }

  setAttribute(key: string, value: unknown): this {
    this.#real().setAttribute(key, value);
    return this;
  }

  setAttributes(attributes: Record<string, unknown>): this {
    this.#real().setAttributes(attributes);
    return this;
  }

  addEvent(name: string, attributes?: Record<string, unknown>): this {
    this.#real().addEvent(name, attributes);
    return this;
  }

  recordException(exception: unknown, time?: unknown): void {
    this.#real().recordException(exception, time);
  }

  setStatus(status: { code: number; message?: string }): this {
    this.#real().setStatus(status);
    return this;
  }

  end(): void {
    this.#owner.end();
  }

  isRecording(): boolean {
    return this.#real().isRecording();
  }

  #real(): OtelSpan {
    return this.#owner.startedOtelSpan() ?? noOtelSpan;
  }
}

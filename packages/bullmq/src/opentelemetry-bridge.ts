/**
 * OpenTelemetry, where an application registered it, reached through the API's own global registry rather
 * than an import: `@opentelemetry/api` stays an optional peer, ids-only users install nothing, and whichever
 * copy of the API the application registered its SDK with is the one used. The registry's key carries the
 * API's major version (open-telemetry/opentelemetry-js, api/src/internal/global-utils.ts); its `trace` entry
 * is the registered TracerProvider and `context` the ContextManager. Context keys are `Symbol.for` their
 * description (api/src/context/context.ts createContextKey), so the span key is the same in every copy.
 */

/** The parts of an OpenTelemetry Context this package uses. */
export interface OtelContext {
  getValue(key: symbol): unknown;
  setValue(key: symbol, value: unknown): OtelContext;
  deleteValue(key: symbol): OtelContext;
}

export interface OtelSpanContext {
  readonly traceId: string;
  readonly spanId: string;
  readonly traceFlags: number;
  readonly isRemote?: boolean;
  readonly traceState?: unknown;
}

export interface OtelSpan {
  spanContext(): OtelSpanContext;
  setAttribute(key: string, value: unknown): this;
  setAttributes(attributes: Record<string, unknown>): this;
  addEvent(name: string, attributes?: Record<string, unknown>): this;
  recordException(exception: unknown, time?: unknown): void;
  setStatus(status: { code: number; message?: string }): this;
  end(): void;
  isRecording(): boolean;
}

interface OtelTracer {
  startSpan(
    name: string,
    options?: { kind?: number; links?: Array<{ context: OtelSpanContext }>; root?: boolean },
    context?: OtelContext,
  ): OtelSpan;
}

interface OtelGlobals {
  readonly trace?: { getTracer(name: string, version?: string): OtelTracer };
  readonly context?: {
    active(): OtelContext;
    with<R>(context: OtelContext, fn: () => R): R;
  };
}

const kGlobals = Symbol.for('opentelemetry.js.api.1');
const kSpan = Symbol.for('OpenTelemetry Context Key SPAN');

/** What the bridge offers: present only while an application has a tracer provider and a context manager. */
export interface Otel {
  readonly tracer: OtelTracer;
  active(): OtelContext;
  with<R>(context: OtelContext, fn: () => R): R;
  withSpan(context: OtelContext, span: OtelSpan): OtelContext;
  /** `context` with no span: a new trace starts under it. */
  withoutSpan(context: OtelContext): OtelContext;
}

/**
 * The registered OpenTelemetry, looked up on each call (an SDK may register after the queue is made) and built
 * once per registration: BullMQ asks for it several times a job. The API registers its ProxyTracerProvider,
 * which outlives a change of SDK, so a tracer taken from it once stays right.
 */
export function otelFinder(tracerName: string): () => Otel | undefined {
  let found: { provider: object; manager: object; otel: Otel } | undefined;
  return () => {
    const globals = (globalThis as { [kGlobals]?: OtelGlobals })[kGlobals];
    const provider = globals?.trace;
    const manager = globals?.context;
    if (provider === undefined || manager === undefined) return undefined;
    if (found?.provider === provider && found.manager === manager) return found.otel;
    const otel: Otel = {
      tracer: provider.getTracer(tracerName),
      active: () => manager.active(),
      with: (context, fn) => manager.with(context, fn),
      withSpan: (context, span) => context.setValue(kSpan, span),
      withoutSpan: (context) => context.deleteValue(kSpan),
    };
    found = { provider, manager, otel };
    return otel;
  };
}

/** A span that only names a remote parent, as the API's NonRecordingSpan does: for a producer's traceparent. */
export function remoteSpan(spanContext: OtelSpanContext): OtelSpan {
  return new RemoteSpan(spanContext);
}

// A class, not an object literal of closures: one is made for every job that continues its producer's trace.
class RemoteSpan implements OtelSpan {
  readonly #spanContext: OtelSpanContext;

  constructor(spanContext: OtelSpanContext) {
    this.#spanContext = spanContext;
  }

  spanContext(): OtelSpanContext {
    return this.#spanContext;
  }

  setAttribute(): this {
    return this;
  }

  setAttributes(): this {
    return this;
  }

  addEvent(): this {
    return this;
  }

  recordException(): void {}

  setStatus(): this {
    return this;
  }

  end(): void {}

  isRecording(): boolean {
    return false;
  }
}

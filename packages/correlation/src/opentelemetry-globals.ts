/*
 * OpenTelemetry, where an application registered it, reached through the API's own global registry rather than
 * an import: `@opentelemetry/api` stays out of the broker packages' dependencies, and whichever copy of the API
 * the application registered its SDK with is the one used. The key carries the API's major version
 * (open-telemetry/opentelemetry-js, api/src/internal/global-utils.ts); context keys are `Symbol.for` their
 * description (api/src/context/context.ts), so the span key is the same in every copy.
 */
const kGlobals = Symbol.for('opentelemetry.js.api.1');
const kSpan = Symbol.for('OpenTelemetry Context Key SPAN');

/** The parts of an OpenTelemetry Context the brokers use. */
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

export interface OtelTracer {
  startSpan(
    name: string,
    options?: { kind?: number; links?: Array<{ context: OtelSpanContext }>; root?: boolean },
    context?: OtelContext,
  ): OtelSpan;
}

interface Globals {
  readonly trace?: { getTracer(name: string, version?: string): OtelTracer };
  readonly context?: { active(): OtelContext; with<R>(context: OtelContext, fn: () => R): R };
}

/** The registered tracer provider and context manager, and the span key's operations. */
export interface RegisteredOpenTelemetry {
  getTracer(name: string): OtelTracer;
  active(): OtelContext;
  with<R>(context: OtelContext, fn: () => R): R;
  spanOf(context: OtelContext): OtelSpan | undefined;
  withSpan(context: OtelContext, span: OtelSpan): OtelContext;
  /** `context` with no span: a new trace starts under it. */
  withoutSpan(context: OtelContext): OtelContext;
}

let found: { provider: object; manager: object; otel: RegisteredOpenTelemetry } | undefined;

/**
 * The OpenTelemetry an application registered now (an SDK may register after a queue is made), or `undefined`
 * without a tracer provider and a context manager. The same object while neither changes.
 */
export function registeredOpenTelemetry(): RegisteredOpenTelemetry | undefined {
  const globals = (globalThis as { [kGlobals]?: Globals })[kGlobals];
  const provider = globals?.trace;
  const manager = globals?.context;
  if (provider === undefined || manager === undefined) return undefined;
  if (found?.provider === provider && found.manager === manager) return found.otel;
  const otel: RegisteredOpenTelemetry = {
    getTracer: (name) => provider.getTracer(name),
    active: () => manager.active(),
    with: (context, fn) => manager.with(context, fn),
    spanOf: (context) => context.getValue(kSpan) as OtelSpan | undefined,
    withSpan: (context, span) => context.setValue(kSpan, span),
    withoutSpan: (context) => context.deleteValue(kSpan),
  };
  found = { provider, manager, otel };
  return otel;
}

import type { CapturedContext } from './captured-context.js';
import { ScopedContext, type Context } from './context.js';
import { contextSlot, frameWith, sharedState, storage } from './registry.js';

/** What every adapter puts in a request's scope; add your own fields by augmenting this interface. */
export interface RequestStore {
  /** This request's, or this job run's, own id. */
  requestId: string;
  traceId?: string;
  spanId?: string;
  /** The W3C trace-flags that came with the trace, passed on with it. */
  traceFlags?: string;
  /** The W3C `tracestate` that came with the trace, passed on unchanged and never logged. */
  traceState?: string;
  /** The `requestId` of the request or job that caused this one (a job's producer). */
  causationId?: string;
  /** One id along a whole chain of request -> job -> job: the first link's correlation id, or its request id. */
  correlationId?: string;
  /** Inside a job run: what is running. */
  job?: JobInfo;
  /** Inside a GraphQL operation's execution: which operation it is (never its variables). */
  operation?: OperationInfo;
}

/** The GraphQL operation being executed, logged on every line of its resolvers. */
export interface OperationInfo {
  /** The operation's name (`query GetUser { … }` is `GetUser`); absent for an anonymous operation. */
  readonly name?: string;
  readonly type: 'query' | 'mutation' | 'subscription';
}

/** What a job run is, logged on every line inside it. */
export interface JobInfo {
  /** The job's name (BullMQ's job name, a queue's routing key, a schedule's name). */
  readonly name: string;
  /** The job's own id, where the queue gives one (and it passes the request-id rule). */
  readonly id?: string;
  /** Which system runs it: `bullmq`, `amqp`, `schedule`, or yours. */
  readonly system?: string;
  readonly queue?: string;
  /** 1 for the first run, 2 for the first retry, ... */
  readonly attempt?: number;
}

/** The ids of the span active in the current flow, as a tracer reports them. */
export interface ActiveTrace {
  readonly traceId: string;
  readonly spanId: string;
  /** W3C trace flags as a number (OpenTelemetry's SpanContext#traceFlags): bit 0 is `sampled`. */
  readonly traceFlags?: number;
}

/** Reports the active span of the current flow, or `undefined` when none is active. Called on every read. */
export type TraceSource = () => ActiveTrace | undefined;

const tracer = sharedState<{ source: TraceSource | undefined }>('@ambient/core.trace-source', () => ({
  source: undefined,
}));

/**
 * Makes requestContext's trace fields report a tracer's active span (AmbientContextManager's), so log lines and
 * spans share one trace id; the scope's own values apply where no span is active. `undefined` unregisters.
 */
export function setTraceSource(source: TraceSource | undefined): void {
  tracer.source = source;
}

/** The active span as the registered tracer reports it, or `undefined`: one call for a log line's trace fields. */
export function activeTrace(): ActiveTrace | undefined {
  return tracer.source?.();
}

/** requestContext, where the trace fields come from the active span while a tracer reports one. */
class RequestContext extends ScopedContext<RequestStore> {
  override get<K extends keyof RequestStore>(key: K): RequestStore[K] | undefined {
    const value = super.get(key);
    if (key !== 'traceId' && key !== 'spanId' && key !== 'traceFlags') return value;
    const source = tracer.source;
    if (source === undefined || !this.active) return value;
    const trace = source();
    if (trace === undefined) return value;
    if (key === 'traceFlags') return (flagsOf(trace) ?? value) as RequestStore[K];
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- K is narrowed for the check only
    return trace[key as 'traceId' | 'spanId'] as RequestStore[K];
  }

  override require<K extends keyof RequestStore>(key: K): Exclude<RequestStore[K], undefined> {
    if (key === 'traceId' || key === 'spanId') {
      const value = this.get(key);
      if (value !== undefined) return value as Exclude<RequestStore[K], undefined>;
    }
    return super.require(key);
  }

  override snapshot(): Readonly<Partial<RequestStore>> | undefined {
    const values = super.snapshot();
    const trace = values === undefined ? undefined : activeTrace();
    if (values === undefined || trace === undefined) return values;
    const active: Partial<RequestStore> = { ...values, traceId: trace.traceId, spanId: trace.spanId };
    const traceFlags = flagsOf(trace);
    if (traceFlags !== undefined) active.traceFlags = traceFlags;
    return Object.freeze(active);
  }
}

/** The active span's flags as a traceparent's two hex digits. */
function flagsOf(trace: ActiveTrace): string | undefined {
  const flags = trace.traceFlags;
  if (typeof flags !== 'number' || !Number.isInteger(flags) || flags < 0 || flags > 0xff) return undefined;
  return flags.toString(16).padStart(2, '0');
}

/** The context every adapter opens and every consumer reads: one object per process, across copies. */
export const requestContext: Context<RequestStore> = sharedState(
  '@ambient/core.request-context',
  () =>
    new RequestContext(
      'requestContext',
      "Open one first: mount your framework's Ambient adapter in front of this code, or wrap the call in " +
        'requestContext.run({ requestId }, fn).',
    ),
);

/**
 * The values current now, with requestContext's scope replaced by a copy that also holds `values`: what a
 * traced call (a GraphQL operation's execution) runs in, so that it adds to its request's scope without writing
 * into it. `undefined` outside any request scope. Nothing is entered.
 */
export function captureRequestScopeWith(values: Partial<RequestStore>): CapturedContext | undefined {
  const frame = storage.getStore();
  const slot = contextSlot(requestContext) as number;
  const scope = frame?.[slot] as Partial<RequestStore> | undefined;
  if (scope === undefined) return undefined;
  // The same (null) prototype as every scope run() makes, so that the copy reads as its request's scope.
  const child = Object.assign(Object.create(Object.getPrototypeOf(scope) as object | null) as object, scope, values);
  return frameWith(frame, slot, child) as unknown as CapturedContext;
}

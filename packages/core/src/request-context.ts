import { ScopedContext, type Context } from './context.js';
import { sharedSingleton } from './storage.js';
import { currentTraceSource, type ActiveTrace } from './trace-source.js';

/**
 * What every adapter puts in a request's scope. Add your own fields by augmentation:
 *
 *     declare module '@ambient/core' { interface RequestStore { userId?: string } }
 */
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
  /** Inside a job run (runJob, scheduled): what is running. */
  job?: JobInfo;
}

/** What a job run is: logged on every line inside it by @ambient/pino-context. */
export interface JobInfo {
  /** The job's name (BullMQ's job name, a queue's routing key, a schedule's name). */
  readonly name: string;
  /** The job's own id, where the queue gives one (and it passes the request-id rule). */
  readonly id?: string;
  /** Which system runs it: `bullmq`, `amqp`, `schedule`, or yours. */
  readonly system?: string;
  /** The queue it came from. */
  readonly queue?: string;
  /** 1 for the first run, 2 for the first retry, ... */
  readonly attempt?: number;
}

/**
 * requestContext reports the active span's `traceId`/`spanId` where a tracer registered a trace source (see
 * setTraceSource) and a span is active; the scope's own values otherwise. The span is looked up on read, never
 * copied into the scope, so values set during the request stay in the request's one scope object.
 */
class RequestContext extends ScopedContext<RequestStore> {
  override get<K extends keyof RequestStore>(key: K): RequestStore[K] | undefined {
    const value = super.get(key);
    if (key !== 'traceId' && key !== 'spanId' && key !== 'traceFlags') return value;
    const source = currentTraceSource();
    if (source === undefined || !this.active) return value;
    const trace = source();
    if (trace === undefined) return value;
    if (key === 'traceFlags') return (flagsOf(trace) ?? value) as RequestStore[K];
    // tsc needs both assertions (K is narrowed for the check, not for indexing); the linter sees them as no-ops.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
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
    const source = currentTraceSource();
    if (values === undefined || source === undefined) return values;
    const trace = source();
    if (trace === undefined) return values;
    const active: Partial<RequestStore> = { ...values, traceId: trace.traceId, spanId: trace.spanId };
    const traceFlags = flagsOf(trace);
    if (traceFlags !== undefined) active.traceFlags = traceFlags;
    return Object.freeze(active);
  }
}

/**
 * The active span's flags as the two hex digits of a traceparent: a carrier or log line inside a sampled span
 * says `01` even where the request came in without a traceparent.
 */
function flagsOf(trace: ActiveTrace): string | undefined {
  const flags = trace.traceFlags;
  if (typeof flags !== 'number' || !Number.isInteger(flags) || flags < 0 || flags > 0xff) return undefined;
  return flags.toString(16).padStart(2, '0');
}

/**
 * The context every HTTP adapter opens and every consumer (loggers, tracers, your code) reads. One object per
 * process, shared by the ESM and CJS builds and by duplicate installs of @ambient/core.
 */
export const requestContext: Context<RequestStore> = sharedSingleton(
  'requestContext',
  () =>
    new RequestContext(
      'requestContext',
      'Open one first: mount the framework adapter (expressContext(), koaContext(), fastifyContext(), ' +
        'httpContext()) in front of this code, or wrap the call in requestContext.run({ requestId }, fn).',
    ),
);

import { ScopedContext, type Context } from './context.js';
import { sharedSingleton } from './storage.js';
import { currentTraceSource, type ActiveTrace } from './trace-source.js';

/**
 * What every adapter puts in a request's scope. Add your own fields by augmentation:
 *
 *     declare module '@ambient/core' { interface RequestStore { userId?: string } }
 */
export interface RequestStore {
  requestId: string;
  traceId?: string;
  spanId?: string;
}

/**
 * requestContext reports the active span's `traceId`/`spanId` where a tracer registered a trace source (see
 * setTraceSource) and a span is active; the scope's own values otherwise. The span is looked up on read, never
 * copied into the scope, so values set during the request stay in the request's one scope object.
 */
class RequestContext extends ScopedContext<RequestStore> {
  override get<K extends keyof RequestStore>(key: K): RequestStore[K] | undefined {
    const value = super.get(key);
    if (key !== 'traceId' && key !== 'spanId') return value;
    const source = currentTraceSource();
    if (source === undefined || !this.active) return value;
    const trace = source();
    if (trace === undefined) return value;
    // tsc needs both assertions (K is narrowed for the check, not for indexing); the linter sees them as no-ops.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
    return trace[key as keyof ActiveTrace] as RequestStore[K];
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
    return trace === undefined ? values : Object.freeze({ ...values, traceId: trace.traceId, spanId: trace.spanId });
  }
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

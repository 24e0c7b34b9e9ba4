import { EventEmitter } from 'node:events';
import {
  INVALID_SPANID,
  INVALID_TRACEID,
  ROOT_CONTEXT,
  trace,
  type Context,
  type ContextManager,
  type SpanContext,
} from '@opentelemetry/api';
import { Snapshot, Variable, requestContext } from '@ambient/core';
import { setTraceSource, type ActiveTrace } from '@ambient/core/adapter';
import { bindEmitterToContext } from './bind-emitter.js';
import { forwardingFunction } from './forwarding-function.js';

type AnyFunction = (...args: never[]) => unknown;

/**
 * An OpenTelemetry ContextManager that keeps the active Context in Ambient's one storage cell, as one more
 * slot of the frame that also holds requestContext: OpenTelemetry and Ambient can never disagree about which
 * request a callback belongs to, and together cost one AsyncLocalStorage instead of two (on Node 20 each
 * enabled AsyncLocalStorage taxes every await: benchmarks/core-async-hop.mjs).
 *
 * While enabled, requestContext's `traceId`/`spanId` report the active span, so pino lines written through
 * @ambient/pino-context carry the same ids as the spans.
 *
 *     provider.register({ contextManager: new AmbientContextManager() });
 */
export class AmbientContextManager implements ContextManager {
  /** Replaced by disable(): what was active before is then invisible, as when AsyncLocalStorage is disabled. */
  #variable = new Variable<Context | undefined>({ name: 'opentelemetry.context' });
  readonly #listenersKey = Symbol('ambient.opentelemetry.listeners');
  readonly #traceSource = (): ActiveTrace | undefined => activeSpanContext(this.#variable.get());

  active(): Context {
    return this.#variable.get() ?? ROOT_CONTEXT;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    const callback = thisArg == null ? fn : (fn.bind(thisArg) as F);
    return this.#variable.run(context, callback, ...args);
  }

  bind<T>(context: Context, target: T): T {
    if (target instanceof EventEmitter) {
      bindEmitterToContext(target, this.#listenersKey, (listener) => this.#bindFunction(context, listener));
      return target;
    }
    if (typeof target === 'function') return this.#bindFunction(context, target as T & AnyFunction);
    return target;
  }

  enable(): this {
    setTraceSource(this.#traceSource);
    return this;
  }

  disable(): this {
    this.#variable = new Variable<Context | undefined>({ name: 'opentelemetry.context' });
    setTraceSource(undefined);
    return this;
  }

  /**
   * The bound function runs with `context` active, and with the rest of Ambient's values (requestContext) as
   * they were where it was bound. For emitters that is where each listener is added: http instrumentation
   * binds a request and response before any framework middleware opened the request's scope, so a body
   * parser's `data`/`end` listeners, added later, must take requestContext from where they were added, not
   * from bind time (expressjs/body-parser#422, nodejs/node#41285). Outside a request nothing is captured but
   * the OpenTelemetry context, exactly as with AsyncLocalStorageContextManager (a snapshot restored there would
   * also reset the slots of another context manager bound to the same emitter).
   */
  #bindFunction<F extends AnyFunction>(context: Context, target: F): F {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the bound function has a `this` of its own
    const manager = this;
    let bound: (...args: unknown[]) => unknown;
    if (requestContext.active) {
      // One scope entered per call: the values here with `context` in this manager's Variable, bound without
      // entering anything now (Variable#wrap), where a Snapshot#run with a Variable#run inside it entered two.
      // disable() gives the manager a new Variable, whose slot that frame does not hold: then bind again, from
      // the values kept here.
      const here = new Snapshot();
      let variable = this.#variable;
      let enter = variable.wrap(context, target);
      bound = forwardingFunction(target.length, (thisArg, args) => {
        if (variable !== manager.#variable) {
          const current = (variable = manager.#variable);
          enter = here.run(() => current.wrap(context, target));
        }
        return Reflect.apply(enter, thisArg, args);
      });
    } else {
      bound = forwardingFunction(target.length, (thisArg, args) =>
        manager.#variable.run(context, Reflect.apply, target, thisArg, args),
      );
    }
    return bound as unknown as F;
  }
}

/**
 * The active span's context, unless it is OpenTelemetry's invalid (all-zero) one, which non-recording spans
 * carry. Called on every log line: compared with the invalid ids rather than through isSpanContextValid's two
 * regular expressions, since ids reach a context only through the SDK's generator or its propagators, which
 * validate what they extract. Contexts are opaque values, so check the shape first.
 */
function activeSpanContext(context: Context | undefined): SpanContext | undefined {
  if (context === undefined || typeof (context as Partial<Context>).getValue !== 'function') return undefined;
  const spanContext = trace.getSpanContext(context);
  return spanContext !== undefined && spanContext.traceId !== INVALID_TRACEID && spanContext.spanId !== INVALID_SPANID
    ? spanContext
    : undefined;
}

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
import { Variable, requestContext, type RequestStore } from '@ambient/core';
import { uuidv7, type BaggageIds } from '@ambient/correlation';
import {
  attachValue,
  captureWith,
  functionShapedLike,
  runInCapturedContext,
  setTraceSource,
  type ActiveTrace,
  type AttachedValue,
  runFromRoot,
  scopeObject,
  type CapturedContext,
} from '@ambient/core/internal';
import { bindEmitterToContext } from './bind-emitter.js';
import { carriedIdsKey } from './correlation-propagator.js';
import { ManagerSlot, otherManagerSlots } from './manager-slots.js';

type AnyFunction = (...args: never[]) => unknown;

/**
 * An OpenTelemetry ContextManager that keeps the active Context in Ambient's one storage cell, as one more
 * slot of the frame that also holds requestContext: OpenTelemetry and Ambient can never disagree about which
 * request a callback belongs to, and together cost one AsyncLocalStorage instead of two.
 *
 * While enabled, requestContext's `traceId`/`spanId` report the active span, so pino lines written through
 * @ambient/pino-context carry the same ids as the spans.
 *
 *     provider.register({ contextManager: new AmbientContextManager() });
 */
export class AmbientContextManager implements ContextManager {
  /**
   * Where this manager keeps the active Context. disable() gives it a new Variable, so what was active before is
   * invisible, as when AsyncLocalStorage is disabled; the slot object stays, registered for bind() of other
   * managers (see manager-slots.ts).
   */
  readonly #slot = new ManagerSlot();
  readonly #listenersKey = Symbol('ambient.opentelemetry.listeners');
  readonly #traceSource = (): ActiveTrace | undefined => activeSpanContext(this.#slot.variable.get());

  active(): Context {
    return this.#slot.variable.get() ?? ROOT_CONTEXT;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    const callback = thisArg == null ? fn : (fn.bind(thisArg) as F);
    // OpenTelemetry's own managers take any value as a context (their tests pass plain objects): so does this one.
    const carried = (context as Partial<Context> | null | undefined)?.getValue?.(carriedIdsKey) as
      BaggageIds | undefined;
    if (carried !== undefined && !inMessageScope(carried)) {
      return runInMessageScope(carried, () => this.#slot.variable.run(context, callback, ...args));
    }
    return this.#slot.variable.run(context, callback, ...args);
  }

  /**
   * A function comes back wrapped with the `name` and `length` Snapshot.wrap gives ("wrapped fn"): express, for
   * one, tells error middleware by its four parameters. Listeners of a bound emitter keep their `length` only:
   * they are bound on every request.
   */
  bind<T>(context: Context, target: T): T {
    if (target instanceof EventEmitter) {
      bindEmitterToContext(target, this.#listenersKey, (listener) =>
        this.#bindFunction(context, listener, (forward) => functionShapedLike(listener, forward)),
      );
      return target;
    }
    if (typeof target === 'function') {
      const fn = target as T & AnyFunction;
      return this.#bindFunction(context, fn, (forward) => functionShapedLike(fn, forward, 'wrapped'));
    }
    return target;
  }

  /**
   * OpenTelemetry's experimental attach() (@opentelemetry/api 1.10): makes `context` active for the rest of
   * the current synchronous execution and what it starts, until the token is disposed; disposing restores the
   * context that was active before, once. As with OpenTelemetry's own manager, inside an async function before
   * its first `await` the change also reaches the caller: prefer with().
   * AsyncLocalStorage#withScope (Node 24.20+) would restore the whole store, where this restores the one slot.
   */
  attach(context: Context): AttachedValue {
    return attachValue(this.#slot.variable, context);
  }

  enable(): this {
    setTraceSource(this.#traceSource);
    return this;
  }

  disable(): this {
    this.#slot.variable = new Variable<Context | undefined>({ name: 'opentelemetry.context' });
    setTraceSource(undefined);
    return this;
  }

  /**
   * The bound function runs with `context` active and Ambient's values as they were where it was bound; for an
   * emitter, where each listener is added: http instrumentation binds `req`/`res` before any middleware opened
   * the request's scope, and a body parser's `data`/`end` listeners, added later, need the request's values
   * (expressjs/body-parser#422, nodejs/node#41285). Every other AmbientContextManager's context is the caller's,
   * as with two of OpenTelemetry's managers, each on its own AsyncLocalStorage.
   */
  #bindFunction<F extends AnyFunction>(
    context: Context,
    target: F,
    shape: (forward: (thisArg: unknown, args: ArrayLike<unknown>) => unknown) => (...args: unknown[]) => unknown,
  ): F {
    const slot = this.#slot;
    if (!requestContext.active) {
      return shape((thisArg, args) => slot.variable.run(context, Reflect.apply, target, thisArg, args)) as unknown as F;
    }
    // One scope entered per call: the values here with `context` in this manager's Variable, captured without
    // entering anything now. After disable() the manager has a new Variable, whose slot that capture does not
    // hold: then capture again, from the values kept.
    let variable = slot.variable;
    let captured = captureWith(variable, context);
    return shape((thisArg, args) => {
      if (variable !== slot.variable) {
        const current = (variable = slot.variable);
        captured = runInCapturedContext(captured, () => captureWith(current, context));
      }
      const others = otherManagerSlots(slot);
      return others === undefined
        ? runInCapturedContext(captured, target, thisArg, args as IArguments)
        : runWithCallersContexts(captured, others, () => Reflect.apply(target, thisArg, args));
    }) as unknown as F;
  }
}

/** `call` in `captured`, but with every other manager's context as the caller has it now. */
function runWithCallersContexts(
  captured: CapturedContext,
  others: readonly ManagerSlot[],
  call: () => unknown,
): unknown {
  const values = others.map((other) => [other.variable, other.variable.get()] as const);
  return runInCapturedContext(captured, () =>
    values.reduce<() => unknown>(
      (inner, [variable, value]) =>
        () =>
          variable.run(value, inner),
      call,
    )(),
  );
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

/**
 * The scope each message's carried ids opened, by the (frozen, per-extract) ids object: an instrumentation enters
 * the message's context again and again while the handler runs (every span it makes active derives from it), and
 * only the first, outermost entry opens the message's scope.
 */
const messageScopes = new WeakMap<BaggageIds, Partial<RequestStore>>();

function inMessageScope(carried: BaggageIds): boolean {
  const opened = messageScopes.get(carried);
  return opened !== undefined && opened === scopeObject(requestContext);
}

/**
 * `fn` in the scope of a message that came with Ambient's ids in its baggage (correlationPropagator), as a job
 * run is opened: from the root, a fresh request id, the sender as causation, its chain's correlation id.
 */
function runInMessageScope<R>(carried: BaggageIds, fn: () => R): R {
  return runFromRoot(
    requestContext,
    (values: Partial<RequestStore>) => {
      values.requestId = uuidv7();
      if (carried.causationId !== undefined) values.causationId = carried.causationId;
      const correlationId = carried.correlationId ?? carried.causationId;
      if (correlationId !== undefined) values.correlationId = correlationId;
    },
    () => {
      messageScopes.set(carried, scopeObject(requestContext)!);
      return fn();
    },
  );
}

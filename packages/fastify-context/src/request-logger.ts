import { requestContext } from '@ambient/core';
import { scopeObject } from '@ambient/core/internal';

/** The log methods fastify requires of a logger (besides `child`), and the only ones wrapped here. */
const levels = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
type Level = (typeof levels)[number];

const kRequestId = Symbol('@ambient/fastify-context.requestId');

/** A log method of the logger fastify was given, called on one of its children. */
type LogMethod = (this: object, ...args: unknown[]) => unknown;
type Logger = Record<Level, LogMethod>;

/** A logger made by the factory below, or a child of one: it knows its request's id. */
interface RequestLogger {
  readonly [kRequestId]?: string;
}

/**
 * Runs a log method in a scope holding the logger's request id unless the current scope already holds it (the
 * scope ends when the method returns). fastify writes "incoming request" before any hook, so before onRequest
 * opens the request's scope, where a pino mixin (correlationMixin) would find no id, or the id of whatever
 * scope was open where the server was started.
 */
function logInRequestScope(logger: RequestLogger, method: LogMethod, args: unknown[]): unknown {
  const requestId = logger[kRequestId];
  // Before onRequest there is no scope yet, which is no lost context (@ambient/diagnostics): peeked.
  if (requestId === undefined || scopeObject(requestContext)?.requestId === requestId) {
    return method.apply(logger, args);
  }
  return requestContext.run({ requestId }, () => method.apply(logger, args));
}

/**
 * The object every request's logger descends from, one per logger fastify was given: its log methods are the
 * logger's, through logInRequestScope. One shared prototype keeps the request loggers alike for V8: a new
 * prototype per request (an object made from each child) turns every child into a prototype and every pino
 * call megamorphic.
 */
function createBase(logger: Logger): object {
  const base = Object.create(logger) as Record<PropertyKey, unknown>;
  for (const level of levels) {
    base[level] = function logMethod(this: RequestLogger, ...args: unknown[]): unknown {
      // Read on every call: pino replaces a logger's methods when its level changes.
      return logInRequestScope(this, logger[level], args);
    };
  }
  return base;
}

/**
 * A child made with its own level (a route's or a plugin's `logLevel`) has log methods of its own, which hide
 * the base's: they are wrapped on the child itself.
 */
function wrapOwnMethods(child: Record<PropertyKey, unknown>): void {
  for (const level of levels) {
    const method = child[level] as LogMethod;
    child[level] = function logMethod(this: RequestLogger, ...args: unknown[]): unknown {
      return logInRequestScope(this, method, args);
    };
  }
}

/**
 * fastify's `childLoggerFactory`, signature and `this` (the route's fastify instance) included, without
 * importing fastify's types at run time.
 */
export type ChildLoggerFactory<I, L, B, O, R> = (this: I, logger: L, bindings: B, options: O, rawRequest: R) => L;

/**
 * Each logger's base, made on the first request that uses the logger; `null` for a logger whose children cannot
 * descend from another object (one that keeps its state in #private fields, say): its children are left as
 * they are, since a throw in the child logger factory is an uncaught exception in fastify's request listener.
 */
const bases = new WeakMap<object, object | null>();

function baseOf(logger: object): object | null {
  let base = bases.get(logger);
  if (base === undefined) {
    base = createBase(logger as Logger);
    try {
      (base as { child(bindings: object): unknown }).child({});
    } catch {
      base = null;
    }
    bases.set(logger, base);
  }
  return base;
}

/**
 * Wraps fastify's child logger factory (fastify's default, or the user's). fastify documents the factory as
 * the place to change a request logger's bindings; the wrapper
 * - makes the request id in the bindings `scopeRequestId(fastifyInstance, request.id)`, so an id that failed
 *   validation (from fastify's own requestIdHeader, say) never reaches a line of fastify's;
 * - hands `parent` the logger's base (createBase) to make the child from, and marks the child with that id.
 * `scopeRequestId` must give the same id for a request each time it is asked (the onRequest hook asks again).
 */
export function requestLoggerFactory<I, L extends object, B extends object, O, R>(
  parent: ChildLoggerFactory<I, L, B, O, R>,
  scopeRequestId: (server: I, rawRequest: R, id: unknown) => string,
): ChildLoggerFactory<I, L, B, O, R> {
  return function ambientChildLogger(logger, bindings, options, rawRequest) {
    let requestId: string | undefined;
    // fastify passes `{ [requestIdLogLabel]: request.id }`; the label is configurable (fastify 5.12 moves it
    // into logController), so the id is read as the object's one entry.
    for (const label in bindings) {
      const values = bindings as Record<string, unknown>;
      const id = values[label];
      requestId = scopeRequestId(this, rawRequest, id);
      if (requestId !== id) values[label] = requestId;
      break;
    }
    const base = baseOf(logger);
    const child = parent.call(this, (base ?? logger) as L, bindings, options, rawRequest);
    // Only a child of the base is this request's own: a factory of the user's may return a shared logger.
    if (base !== null && Object.getPrototypeOf(child) === base) {
      (child as Record<symbol, unknown>)[kRequestId] = requestId;
      if (Object.hasOwn(child, 'info')) wrapOwnMethods(child as Record<PropertyKey, unknown>);
    }
    return child;
  };
}

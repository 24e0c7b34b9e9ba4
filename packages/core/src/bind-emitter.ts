import type { EventEmitter } from 'node:events';
import { runInFrame } from './captured-context.js';
import { errors } from './errors.js';
import { forwardingFunction, lengthOf } from './forwarding-function.js';
import { boundEmitter as kBound, storage, type Frame } from './registry.js';

type Listener = (...args: unknown[]) => unknown;
type AddListener = (this: EventEmitter, event: string | symbol, listener: Listener) => EventEmitter;

/**
 * Makes every listener registered from now on run in the context it was registered in, not in `emit()`'s caller's
 * (an HTTP request's `end` runs in the parser's: nodejs/node#41285, nodejs/node#33723). The wrapper carries the
 * original as `.listener`, as `once` wrappers do, so removing, listing and counting listeners work unpatched.
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
 * bindEmitter for every emitter that inherits from `prototype`, now and later: for emitters whose prototype was
 * replaced (express's req and res), to which V8 adds properties slowly.
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
  // Its own methods, or the inherited ones looked up at each call, so that a later patch up the chain still runs.
  const originals: ListenerMethods = hasOwnListenerMethods(prototype)
    ? {
        on: (prototype as BoundEmitter).on,
        addListener: (prototype as BoundEmitter).addListener,
        prependListener: (prototype as BoundEmitter).prependListener,
      }
    : (Object.getPrototypeOf(prototype) as ListenerMethods);
  const methods = boundMethods(() => originals);
  const define = (key: PropertyKey, value: unknown) =>
    Object.defineProperty(prototype, key, { value, writable: true, configurable: true, enumerable: false });
  for (const [name, method] of Object.entries(methods)) define(name, method);
  // For an inheriting emitter that is also bound one by one (its own methods replaced by an instrumentation).
  define(kOriginals, originals);
  define(kBound, true);
}

/** Where an emitter that had replaced its listener methods keeps them, for the shared bound methods. */
const kOriginals = Symbol('ambient.originalListenerMethods');

interface ListenerMethods {
  on: AddListener;
  addListener: AddListener;
  prependListener: AddListener;
}

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

/** The methods every emitter bound one by one gets, by assignment: far cheaper than defineProperty. */
const sharedBoundMethods = boundMethods(originalsOf);

/** The listener in the frame current now, with its `length` (its name is dear to set; `.listener` has it). */
function bindListener(listener: Listener): Listener {
  // Leave non-functions to EventEmitter, which rejects them with its own ERR_INVALID_ARG_TYPE.
  if (typeof listener !== 'function') return listener;
  const bound = forwardingFunction(lengthOf(listener), runListener, storage.getStore(), listener) as Listener & {
    listener?: Listener;
  };
  bound.listener = listener;
  return bound;
}

/** What every bound listener does: one function for all of them, not a closure each. */
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

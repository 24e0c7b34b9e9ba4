import { AsyncLocalStorage } from 'node:async_hooks';
import { registerCopy } from './copies.js';
import { errors } from './errors.js';

/**
 * The values of every Variable and Context in one async flow, indexed by slot. A frame is never changed
 * after it has been entered: a write makes a new frame (copy on write), so continuations that captured the
 * old one keep what they had.
 */
export type Frame = readonly unknown[];

/** The one storage cell: Node's AsyncLocalStorage, or an adapter over globalThis.AsyncContext. */
export interface FrameStorage {
  getStore(): Frame | undefined;
  run<R, A extends unknown[]>(frame: Frame, fn: (...args: A) => R, ...args: A): R;
  enterWith(frame: Frame): void;
}

/** Calls `fn(...args)` with `frame` current, and restores the caller's frame when `fn` returns or throws. */
export type RunWithFrame = <R, A extends unknown[]>(frame: Frame, fn: (...args: A) => R, ...args: A) => R;

export type Backend = 'AsyncLocalStorage' | 'AsyncContext';

interface Registry {
  readonly backend: Backend;
  readonly storage: FrameStorage;
  /** How run() enters a frame on this storage: see hasPerInstanceSlots(). */
  readonly runWithFrame: RunWithFrame;
  nextSlot: number;
  /** Well-known objects that must be one and the same in every copy of this package. */
  readonly shared: Map<string, unknown>;
  /** What @ambient/diagnostics listens with, while it is on; absent (and then free) by default. */
  probe?: DiagnosticsProbe | undefined;
}

/**
 * What @ambient/diagnostics is told, while it is on, by every copy of this package and by the adapters (one
 * probe per process, on the registry). Off, each place that would report reads one field and goes on.
 */
export interface DiagnosticsProbe {
  /** A read of `context` (its name) found no scope of it. */
  readonly missedRead: (context: string) => void;
  /** An HTTP request's scope has opened (called inside it); `res` closing ends it. */
  readonly requestOpened: (req: object, res: object, requestId: string) => void;
  /** At `place`, code that belongs to `ownerRequestId` runs: the current scope must be that request's. */
  readonly boundary: (place: string, ownerRequestId: string | undefined) => void;
}

/**
 * One registry per process, whichever copy of @ambient/core loads first creates it: the ESM and CJS builds
 * and duplicate installs all find it here, so they share one storage and one slot counter. The key carries
 * the major version of the registry's shape; a future incompatible shape gets a new key.
 * (OpenTelemetry's API keeps its globals the same way: api/src/internal/global-utils.ts.)
 */
const registryKey = '@ambient/core.registry.v1';
const kRegistry = Symbol.for(registryKey);

interface AsyncContextVariable<T> {
  get(): T | undefined;
  run<R, A extends unknown[]>(value: T, fn: (...args: A) => R, ...args: A): R;
}
interface AsyncContextNamespace {
  Variable: new <T>(options?: { name?: string }) => AsyncContextVariable<T>;
}

function findAsyncContext(): AsyncContextNamespace | undefined {
  const candidate = (globalThis as { AsyncContext?: Partial<AsyncContextNamespace> }).AsyncContext;
  return candidate !== undefined && typeof candidate.Variable === 'function'
    ? (candidate as AsyncContextNamespace)
    : undefined;
}

function createRegistry(): Registry {
  const asyncContext = findAsyncContext();
  if (asyncContext === undefined) {
    const storage = new AsyncLocalStorage<Frame>();
    const runWithFrame: RunWithFrame = hasPerInstanceSlots(storage)
      ? function runWithFrame(frame, fn, ...args) {
          const prior = storage.getStore();
          storage.enterWith(frame);
          try {
            return fn(...args);
          } finally {
            storage.enterWith(prior as Frame);
          }
        }
      : // AsyncLocalStorage#run calls fn with `this` null; the proposal (and the async_hooks path above) with
        // undefined: callUnbound, or Reflect.apply where there are arguments, gives every backend the same
        // receiver. Most runs pass none (every request's scope): for them, no Reflect.apply layer, and
        // AsyncLocalStorage#run gets one argument to pass on instead of three. (A frame `callUnbound` shows in
        // stacks where Reflect.apply showed none.)
        (frame, fn, ...args) =>
          args.length === 0
            ? storage.run(frame, callUnbound, fn)
            : (storage.run(frame, Reflect.apply, fn, undefined, args) as ReturnType<typeof fn>);
    return { backend: 'AsyncLocalStorage', storage, runWithFrame, nextSlot: 0, shared: new Map() };
  }
  const cell = new asyncContext.Variable<Frame>({ name: 'ambient' });
  const storage: FrameStorage = {
    getStore: () => cell.get(),
    run: (frame, fn, ...args) => cell.run(frame, fn, ...args),
    enterWith: () => {
      throw errors.setUnsupported('Variable');
    },
  };
  return {
    backend: 'AsyncContext',
    storage,
    runWithFrame: (frame, fn, ...args) => cell.run(frame, fn, ...args),
    nextSlot: 0,
    shared: new Map(),
  };
}

/** `fn()`, with `this` undefined. */
function callUnbound<R>(fn: () => R): R {
  return fn();
}

/**
 * Does this AsyncLocalStorage keep its value in a slot of its own on each async resource (the async_hooks
 * implementation: Node 20 and 22, or 24+ with --no-async-context-frame), rather than in one frame shared by
 * every instance (AsyncContextFrame, the default from Node 24, nodejs/node#55552)?
 *
 * With a slot of its own, enterWith plus a restore in `finally` touches nothing but our value, and costs no
 * more than run() alone and less beside a second instance (figures:
 * benchmarks/README.md#why-the-code-looks-the-way-it-does). With a shared frame only run() also
 * restores what other libraries entered inside the callback, so run() it is.
 * Told apart by the async_hooks implementation's own instance fields, without calling a method on a second
 * instance: Node's AsyncLocalStorage methods are shared code, and their inline caches would turn polymorphic
 * for our instance too.
 * Anything unrecognised falls back to run(), which is always correct.
 */
function hasPerInstanceSlots(storage: AsyncLocalStorage<Frame>): boolean {
  const internals = storage as unknown as { kResourceStore?: unknown; _propagate?: unknown };
  return typeof internals.kResourceStore === 'symbol' && typeof internals._propagate === 'function';
}

function registry(): Registry {
  const holder = globalThis as { [kRegistry]?: Registry };
  return (holder[kRegistry] ??= createRegistry());
}

const current = registry();
registerCopy(registryKey);

export const storage: FrameStorage = current.storage;

/** The AsyncLocalStorage itself, for diagnostics_channel's bindStore; none on the AsyncContext backend. */
export const channelStorage: AsyncLocalStorage<Frame> | undefined =
  current.backend === 'AsyncLocalStorage' ? (current.storage as AsyncLocalStorage<Frame>) : undefined;
export const runWithFrame: RunWithFrame = current.runWithFrame;

/** How context propagates in this process; see asyncContextImplementation() in root.ts. */
export type Implementation = 'async_hooks' | 'AsyncContextFrame' | 'AsyncContext';

export const implementation: Implementation =
  current.backend === 'AsyncContext'
    ? 'AsyncContext'
    : hasPerInstanceSlots(current.storage as AsyncLocalStorage<Frame>)
      ? 'async_hooks'
      : 'AsyncContextFrame';

/** The diagnostics probe, while @ambient/diagnostics is on. */
export function diagnosticsProbe(): DiagnosticsProbe | undefined {
  return current.probe;
}

/** Installs (or, with `undefined`, removes) the process's diagnostics probe; returns the one it replaced. */
export function setDiagnosticsProbe(probe: DiagnosticsProbe | undefined): DiagnosticsProbe | undefined {
  const previous = current.probe;
  current.probe = probe;
  return previous;
}

/** A new slot in every frame, for a Variable or a Context. Slots are never reused. */
export function allocateSlot(): number {
  return current.nextSlot++;
}

/** The object registered under `key` by whichever copy of this package got there first. */
export function sharedSingleton<T>(key: string, create: () => T): T {
  if (!current.shared.has(key)) current.shared.set(key, create());
  return current.shared.get(key) as T;
}

/** A copy of `frame` with `slot` holding `value`. */
export function frameWith(frame: Frame | undefined, slot: number, value: unknown): Frame {
  // Sized up front: growing an array to `slot` costs twice as much (Node 20 and 24). A frame shorter than
  // `slot` is common: a job's run holds requestContext alone, and OpenTelemetry's slot comes later.
  let next: unknown[];
  if (frame === undefined) next = new Array<unknown>(slot + 1);
  else if (frame.length > slot) next = frame.slice();
  else {
    next = new Array<unknown>(slot + 1);
    for (let i = 0; i < frame.length; i++) next[i] = frame[i];
  }
  next[slot] = value;
  return next;
}

import { AsyncLocalStorage } from 'node:async_hooks';
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

export type Backend = 'AsyncLocalStorage' | 'AsyncContext';

interface Registry {
  readonly backend: Backend;
  readonly storage: FrameStorage;
  nextSlot: number;
  /** Well-known objects that must be one and the same in every copy of this package. */
  readonly shared: Map<string, unknown>;
}

/**
 * One registry per process, whichever copy of @ambient/core loads first creates it: the ESM and CJS builds
 * and duplicate installs all find it here, so they share one storage and one slot counter. The key carries
 * the major version of the registry's shape; a future incompatible shape gets a new key.
 * (OpenTelemetry's API keeps its globals the same way: api/src/internal/global-utils.ts.)
 */
const kRegistry = Symbol.for('@ambient/core.registry.v1');

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
    return { backend: 'AsyncLocalStorage', storage: new AsyncLocalStorage<Frame>(), nextSlot: 0, shared: new Map() };
  }
  const cell = new asyncContext.Variable<Frame>({ name: 'ambient' });
  const storage: FrameStorage = {
    getStore: () => cell.get(),
    run: (frame, fn, ...args) => cell.run(frame, fn, ...args),
    enterWith: () => {
      throw errors.setUnsupported('Variable');
    },
  };
  return { backend: 'AsyncContext', storage, nextSlot: 0, shared: new Map() };
}

function registry(): Registry {
  const holder = globalThis as { [kRegistry]?: Registry };
  return (holder[kRegistry] ??= createRegistry());
}

const current = registry();

export const storage: FrameStorage = current.storage;
export const backend: Backend = current.backend;

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
  const next = frame === undefined ? [] : frame.slice();
  next[slot] = value;
  return next;
}

/**
 * A frame equal to `frame` that is not the current one. Node's AsyncLocalStorage#run skips its enter and
 * restore when the store passed is identical to the current one (lib/internal/async_local_storage/*.js), so a
 * set() inside would escape that run; entering a distinct array makes every run restore in `finally`.
 */
export function enterableCopy(frame: Frame | undefined): Frame {
  if (frame === undefined) return [];
  return frame === storage.getStore() ? frame.slice() : frame;
}

import { AsyncLocalStorage } from 'node:async_hooks';
import { fileURLToPath } from 'node:url';
import { version } from './version.js';
import { currentRuntime } from './runtime.js';

/** The values of every Variable and Context in one flow, by slot; never changed once entered (copy on write). */
export type Frame = readonly unknown[];

/** The one storage cell: Node's AsyncLocalStorage, or an adapter over globalThis.AsyncContext. */
export interface FrameStorage {
  getStore(): Frame | undefined;
  enterWith(frame: Frame): void;
}

/** Calls `fn` with `thisArg` and `args` and `frame` current; restores the caller's when it returns or throws. */
export type RunWithFrame = <R>(
  frame: Frame,
  fn: (...args: never) => R,
  thisArg: unknown,
  args: ArrayLike<unknown>,
) => R;

/**
 * async_hooks: Node 20 and 22, or 24+ with --no-async-context-frame; AsyncContextFrame: Node 24+; runtime: the
 * AsyncLocalStorage Bun, Deno or workerd implement themselves.
 */
export type Implementation = 'async_hooks' | 'AsyncContextFrame' | 'AsyncContext' | 'runtime';

export interface CoreCopy {
  readonly version: string;
  /** The installed package's folder (the ESM and CJS builds of one install are one copy). */
  readonly path: string;
}

/** What @ambient/diagnostics listens with while it is on; off, each place that would report reads one field. */
export interface DiagnosticsProbe {
  /** A read of `context` (its name) found no scope of it. */
  readonly missedRead: (context: string) => void;
  /** An HTTP request's scope has opened (called inside it); `res` closing ends it. */
  readonly requestOpened: (req: object, res: object, requestId: string) => void;
  /** At `place`, code that belongs to `ownerRequestId` runs: the current scope must be that request's. */
  readonly boundary: (place: string, ownerRequestId: string | undefined) => void;
}

/**
 * What every copy of @ambient/core in a process shares (ESM and CJS builds, duplicate installs), under one
 * versioned key, as OpenTelemetry's API keeps its globals (api/src/internal/global-utils.ts).
 */
interface Registry {
  /** The version of the copy that made it: a copy joins it only on the same release line. */
  readonly version: string;
  /** Every copy loaded, whether it joined or not. */
  readonly copies: CoreCopy[];
  readonly implementation: Implementation;
  readonly storage: FrameStorage;
  readonly runWithFrame: RunWithFrame;
  /** Held in a slot on purpose, so that `run(undefined, fn)` hides an outer value and the default. */
  readonly undefinedValue: symbol;
  /** Carried by every error of every copy, so that `instanceof AmbientError` holds across them. */
  readonly errorBrand: symbol;
  /** Marks an emitter (or prototype) whose listener methods bindEmitter replaced. */
  readonly boundEmitter: symbol;
  /** The slot of each Context, for scopeObject() on a context another copy made. */
  readonly contextSlots: WeakMap<object, number>;
  nextSlot: number;
  readonly shared: Map<string, unknown>;
}

const kRegistry = Symbol.for('@ambient/core.registry.v1');

interface AsyncContextNamespace {
  Variable: new <T>(options?: { name?: string }) => {
    get(): T | undefined;
    run<R, A extends unknown[]>(value: T, fn: (...args: A) => R, ...args: A): R;
  };
}

function createRegistry(copies: CoreCopy[]): Registry {
  return {
    version,
    copies,
    ...createCell(),
    undefinedValue: Symbol('ambient.undefined'),
    errorBrand: Symbol('ambient.error'),
    boundEmitter: Symbol('ambient.boundEmitter'),
    contextSlots: new WeakMap(),
    nextSlot: 0,
    shared: new Map(),
  };
}

type Cell = Pick<Registry, 'implementation' | 'storage' | 'runWithFrame'>;

function createCell(): Cell {
  const asyncContext = (globalThis as { AsyncContext?: Partial<AsyncContextNamespace> }).AsyncContext;
  if (typeof asyncContext?.Variable === 'function') {
    const variable = new asyncContext.Variable<Frame>({ name: 'ambient' });
    return {
      implementation: 'AsyncContext',
      storage: {
        getStore: () => variable.get(),
        // Unreachable through the API (set() checks first); the table's code all the same.
        enterWith: () => {
          const error = new TypeError('globalThis.AsyncContext cannot change a value in place');
          throw Object.assign(error, { code: 'ERR_AMBIENT_SET_UNSUPPORTED' });
        },
      },
      runWithFrame: (frame, fn, thisArg, args) =>
        variable.run(frame, Reflect.apply, fn, thisArg, args) as ReturnType<typeof fn>,
    };
  }
  const storage = new AsyncLocalStorage<Frame>();
  if (hasPerInstanceSlots(storage)) {
    return {
      implementation: 'async_hooks',
      storage,
      // Only this instance's slot changes: entering in place and restoring in `finally` is run(), for less.
      runWithFrame(frame, fn, thisArg, args) {
        const prior = storage.getStore();
        storage.enterWith(frame);
        try {
          // A spread call where `this` is undefined (every run()): V8 12 drops the array, not for Reflect.apply.
          return thisArg === undefined
            ? (fn as (...spread: unknown[]) => ReturnType<typeof fn>)(...(args as unknown[]))
            : (Reflect.apply(fn, thisArg, args) as ReturnType<typeof fn>);
        } finally {
          storage.enterWith(prior as Frame);
        }
      },
    };
  }
  // AsyncContextFrame (one frame shared by every instance), or anything unrecognised: run(), always correct.
  return {
    implementation: currentRuntime().name === 'Node' ? 'AsyncContextFrame' : 'runtime',
    storage,
    runWithFrame: (frame, fn, thisArg, args) =>
      storage.run(frame, Reflect.apply, fn, thisArg, args) as ReturnType<typeof fn>,
  };
}

/**
 * Does this AsyncLocalStorage keep its value in a slot of its own (async_hooks), not in one frame shared by every
 * instance (AsyncContextFrame, nodejs/node#55552)? Anything unrecognised takes run(), which is always correct.
 */
function hasPerInstanceSlots(storage: AsyncLocalStorage<Frame>): boolean {
  const internals = storage as unknown as { kResourceStore?: unknown; _propagate?: unknown };
  return typeof internals.kResourceStore === 'symbol' && typeof internals._propagate === 'function';
}

/** Can copies of these versions share a registry? The same major, and for 0.x the same minor. */
function sameLine(a: string, b: string): boolean {
  const [aMajor, aMinor] = a.split('.');
  const [bMajor, bMinor] = b.split('.');
  return aMajor === bMajor && (aMajor !== '0' || aMinor === bMinor);
}

function isRegistry(value: unknown): value is Registry {
  const candidate = value as Partial<Registry> | undefined;
  return typeof candidate?.version === 'string' && Array.isArray(candidate.copies);
}

/** The folder of the package this module was loaded from, read off a stack trace (ESM or CommonJS alike). */
function packageFolder(stack: string | undefined): string {
  const at = /\(?((?:file:\/\/\/?)?(?:\/|[A-Za-z]:[\\/])[^():]*?)(?::\d+){2}\)?/.exec(stack?.split('\n')[1] ?? '')?.[1];
  if (at === undefined) return 'unknown';
  const file = at.startsWith('file://') ? fileURLToPath(at) : at;
  return file.replace(/[/\\](?:dist[/\\](?:esm|cjs)|src)[/\\]registry\.[cm]?[jt]s$/, '');
}

const holder = globalThis as { [kRegistry]?: unknown };
const found = holder[kRegistry];
const thisCopy: CoreCopy = Object.freeze({ version, path: packageFolder(new Error().stack) });

/** The copy whose registry this one found and could not join (version-check.ts warns). */
export const incompatibleCopy: CoreCopy | undefined =
  found === undefined
    ? undefined
    : !isRegistry(found)
      ? { version: 'unknown', path: 'unknown' }
      : sameLine(found.version, version)
        ? undefined
        : (found.copies[0] ?? { version: found.version, path: 'unknown' });

const registry: Registry =
  found === undefined
    ? (holder[kRegistry] = createRegistry([]))
    : incompatibleCopy === undefined
      ? (found as Registry)
      : createRegistry(isRegistry(found) ? found.copies : []);
if (!registry.copies.some((copy) => copy.path === thisCopy.path && copy.version === thisCopy.version)) {
  registry.copies.push(thisCopy);
}

export const { storage, runWithFrame, implementation, undefinedValue, errorBrand, boundEmitter } = registry;

/** A new slot in every frame, for a Variable or a Context. Slots are never reused. */
export function allocateSlot(): number {
  return registry.nextSlot++;
}

export function registerContextSlot(context: object, slot: number): void {
  registry.contextSlots.set(context, slot);
}

export function contextSlot(context: object): number | undefined {
  return registry.contextSlots.get(context);
}

/** A copy of `frame` with `slot` holding `value`. */
export function frameWith(frame: Frame | undefined, slot: number, value: unknown): Frame {
  const next = frame === undefined ? [] : frame.slice();
  next[slot] = value;
  return next;
}

/**
 * The state under `key`, made by whichever copy got there first: for every Ambient package whose state must be
 * one per process. Keys are the owning package's name and a word: `@ambient/drivers-context.guard`.
 */
export function sharedState<T>(key: string, create: () => T): T {
  if (!registry.shared.has(key)) registry.shared.set(key, create());
  return registry.shared.get(key) as T;
}

/** Where @ambient/diagnostics installs its probe while it is on: its state, under its own key. */
const diagnostics = sharedState<{ probe?: DiagnosticsProbe }>('@ambient/diagnostics.probe', () => ({}));

export function diagnosticsProbe(): DiagnosticsProbe | undefined {
  return diagnostics.probe;
}

/** Every copy of @ambient/core loaded so far, first first. */
export function loadedCopies(): readonly CoreCopy[] {
  return registry.copies;
}

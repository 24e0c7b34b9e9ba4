import timersModule from 'node:timers';
import { syncBuiltinESMExports } from 'node:module';
import { capturedCallSite, type CallSite } from './call-site.js';
import type { PendingTimer } from './reports.js';

/** What a request armed and has not yet run or cleared. */
export interface ArmedTimer {
  readonly kind: PendingTimer['kind'];
  /** Where it was armed, formatted when a report needs it. */
  readonly armedAt: () => CallSite;
  readonly owner: Set<ArmedTimer>;
  /** Node's Timeout or Immediate, once armed. */
  handle?: unknown;
}

/**
 * Is the timer still armed? Cleared by a path the wrappers do not see (`timeout.close()`, `clearTimeout(+id)`,
 * `[Symbol.dispose]()`), Node marks its Timeout or Immediate destroyed (`_destroyed`, lib/internal/timers.js).
 */
export function stillPending(armed: ArmedTimer): boolean {
  return (armed.handle as { _destroyed?: unknown } | undefined)?._destroyed !== true;
}

type Kind = PendingTimer['kind'];
type TimerFunction = (callback: unknown, ...rest: unknown[]) => unknown;
type ClearFunction = (handle: unknown) => unknown;

const kinds: ReadonlyArray<{ kind: Kind; set: string; clear: string }> = [
  { kind: 'setTimeout', set: 'setTimeout', clear: 'clearTimeout' },
  { kind: 'setInterval', set: 'setInterval', clear: 'clearInterval' },
  { kind: 'setImmediate', set: 'setImmediate', clear: 'clearImmediate' },
];

/**
 * Wraps setTimeout, setInterval and setImmediate (the globals, node:timers, and its ESM bindings) so that a
 * timer armed where `pendingSetOf()` gives a set (inside a request diagnostics follow) is in that set until it
 * has run (an interval: until cleared) or is cleared, with the stack that armed it. A timer armed elsewhere
 * costs one call of `pendingSetOf`. Returns the function that puts Node's own back.
 */
export function trackTimers(pendingSetOf: () => Set<ArmedTimer> | undefined): () => void {
  const handles = new WeakMap<object, ArmedTimer>();
  const globals = globalThis as unknown as Record<string, unknown>;
  const exported = timersModule as unknown as Record<string, unknown>;
  const originals = new Map<string, unknown>();
  for (const { kind, set, clear } of kinds) {
    const original = globals[set] as TimerFunction;
    const originalClear = globals[clear] as ClearFunction;
    originals.set(set, original).set(clear, originalClear);
    const wrapped = function (this: unknown, callback: unknown, ...rest: unknown[]): unknown {
      const owner = typeof callback === 'function' ? pendingSetOf() : undefined;
      if (owner === undefined) return Reflect.apply(original, this, [callback, ...rest]);
      const armed: ArmedTimer = { kind, armedAt: capturedCallSite(wrapped), owner };
      const fn = callback as (...args: unknown[]) => unknown;
      const handle = Reflect.apply(original, this, [
        function (this: unknown, ...args: unknown[]) {
          if (kind !== 'setInterval') owner.delete(armed);
          return Reflect.apply(fn, this, args);
        },
        ...rest,
      ]);
      armed.handle = handle;
      owner.add(armed);
      if (typeof handle === 'object' && handle !== null) handles.set(handle, armed);
      return handle;
    };
    // util.promisify(setTimeout) and friends keep working.
    for (const key of Reflect.ownKeys(original)) {
      if (key === 'length' || key === 'name' || key === 'prototype') continue;
      Object.defineProperty(wrapped, key, Object.getOwnPropertyDescriptor(original, key)!);
    }
    Object.defineProperty(wrapped, 'name', { value: original.name });
    const wrappedClear = function (this: unknown, handle: unknown): unknown {
      if (typeof handle === 'object' && handle !== null) {
        const armed = handles.get(handle);
        armed?.owner.delete(armed);
      }
      return Reflect.apply(originalClear, this, [handle]);
    };
    Object.defineProperty(wrappedClear, 'name', { value: originalClear.name });
    globals[set] = wrapped;
    globals[clear] = wrappedClear;
    exported[set] = wrapped;
    exported[clear] = wrappedClear;
  }
  syncBuiltinESMExports();
  const installed = new Map(kinds.flatMap(({ set, clear }) => [set, clear]).map((name) => [name, globals[name]]));
  return () => {
    // Only where ours is still there: a wrapper installed since (jest's fake timers, sinon) stays.
    for (const [name, original] of originals) {
      if (globals[name] === installed.get(name)) globals[name] = original;
      if (exported[name] === installed.get(name)) exported[name] = original;
    }
    syncBuiltinESMExports();
  };
}

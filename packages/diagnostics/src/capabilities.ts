import { AsyncLocalStorage } from 'node:async_hooks';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import {
  asyncContextImplementation,
  currentRuntime,
  fetchIsUndici,
  loadedCopies,
  sharedState,
} from '@ambient/core/internal';
import type { Capabilities } from './reports.js';

/** Where @ambient/drivers-context says what its active guard binds and patches (guard-drivers.ts). */
const drivers = sharedState<{ guard?: { channels?: unknown; patched?: unknown } }>(
  '@ambient/drivers-context.guard',
  () => ({}),
);

/** What this process runs on: the capability line's facts. */
export function capabilities(): Capabilities {
  const guarded = drivers.guard;
  const runtime = currentRuntime();
  return {
    runtime: `${runtime.name} ${runtime.version}`,
    implementation: asyncContextImplementation(),
    withScope: typeof (AsyncLocalStorage.prototype as { withScope?: unknown }).withScope === 'function',
    nativeAsyncContext: typeof (globalThis as { AsyncContext?: unknown }).AsyncContext === 'object',
    guardedChannels: stringsIn(guarded?.channels),
    patchedMethods: stringsIn(guarded?.patched),
    coreCopies: loadedCopies().length,
    missing: missingHere(),
  };
}

/**
 * What Ambient cannot do on this runtime. The retained-scope check decides after each full collection, which
 * only Node's gc performance entries tell (Bun has none, Deno's carry no kind); fetch carries the ids only where
 * it is undici, which publishes its requests on a diagnostics channel (Bun's and Deno's fetch are their own).
 */
export function missingHere(): string[] {
  const missing: string[] = [];
  if (!majorCollectionsObservable()) missing.push('the retained-scope check (no major-GC performance entries)');
  if (!fetchIsUndici()) missing.push('ids on fetch calls (fetch is not undici)');
  // scheduled() tells a tick a timer called by Node's Timeout resource; elsewhere it cannot, and the schedule's
  // next timer keeps the scope the schedule was created in (its runs still open from the root).
  if (currentRuntime().name !== 'Node') missing.push("scheduled()'s release of the scope a schedule was made in");
  return missing;
}

export function majorCollectionsObservable(): boolean {
  return (
    // A static property since Node 16, missing from @types/node 20.
    (PerformanceObserver as { supportedEntryTypes?: readonly string[] }).supportedEntryTypes?.includes('gc') === true &&
    typeof (constants as { NODE_PERFORMANCE_GC_MAJOR?: unknown }).NODE_PERFORMANCE_GC_MAJOR === 'number'
  );
}

const stringsIn = (value: unknown): readonly string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];

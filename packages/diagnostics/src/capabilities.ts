import { AsyncLocalStorage } from 'node:async_hooks';
import { asyncContextImplementation, loadedCopies, sharedState } from '@ambient/core/internal';
import type { Capabilities } from './reports.js';

/** Where @ambient/drivers-context says what its active guard binds and patches (guard-drivers.ts). */
const drivers = sharedState<{ guard?: { channels?: unknown; patched?: unknown } }>(
  '@ambient/drivers-context.guard',
  () => ({}),
);

/** What this process runs on: the capability line's facts. */
export function capabilities(): Capabilities {
  const guarded = drivers.guard;
  return {
    node: process.version,
    implementation: asyncContextImplementation(),
    withScope: typeof (AsyncLocalStorage.prototype as { withScope?: unknown }).withScope === 'function',
    nativeAsyncContext: typeof (globalThis as { AsyncContext?: unknown }).AsyncContext === 'object',
    guardedChannels: stringsIn(guarded?.channels),
    patchedMethods: stringsIn(guarded?.patched),
    coreCopies: loadedCopies().length,
  };
}

const stringsIn = (value: unknown): readonly string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];

import type { ConformanceHarness } from './harness.js';

/** A per-request key-value store such as Ambient's `requestContext`, read and written by key. */
export interface KeyValueContext {
  get(key: string): unknown;
  set(key: string, value: unknown): void;
}

/**
 * The harness readers for a library whose request store holds `requestId`, `traceId` and `spanId` under
 * those names, and takes other values by key: `readersFor(requestContext)`.
 */
export function readersFor(
  context: KeyValueContext,
): Pick<ConformanceHarness, 'readRequestId' | 'readTrace' | 'setValue' | 'getValue'> {
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  return {
    readRequestId: () => text(context.get('requestId')),
    readTrace: () => ({ traceId: text(context.get('traceId')), spanId: text(context.get('spanId')) }),
    setValue: (key, value) => context.set(key, value),
    getValue: (key) => context.get(key),
  };
}

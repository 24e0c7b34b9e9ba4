import { sharedState, type LineContext } from '@ambient/core/internal';

/**
 * Where a line keeps the context it was logged in, from the log call (guardWinston) to the formats
 * (correlationFormat), which winston may run later: a non-enumerable property of the line's info object, which no
 * format or transport writes out (a WeakMap by line, every line a new key, costs several times as much:
 * benchmarks/README.md). One key
 * and one count of guards for every copy of this package (the ESM and CJS builds), so a guard installed by one is
 * read by the other and never wraps `write` a second time.
 */
export const lineContexts = sharedState<{ key: symbol; guardedWrite: symbol; guards: number }>(
  '@ambient/winston-context.lines',
  () => ({
    key: Symbol('@ambient/winston-context.line'),
    // The mark of a guard's write, whichever build installed it: the other build then leaves it alone.
    guardedWrite: Symbol('@ambient/winston-context.guarded-write'),
    guards: 0,
  }),
);

/** The context `info` was logged in: `null` outside any scope, `undefined` where no guard took it. */
export function lineContextOf(info: object): LineContext | null | undefined {
  return (info as Record<symbol, LineContext | null | undefined>)[lineContexts.key];
}

/** Takes the context here for `info`. */
export function keepLineContext(info: object, line: LineContext | undefined): void {
  Object.defineProperty(info, lineContexts.key, { value: line ?? null, configurable: true });
}

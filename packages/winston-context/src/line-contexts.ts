import { sharedState, type LineContext } from '@ambient/core/internal';

/**
 * The context each line was logged in, by its info object, from the log call (guardWinston) to the formats
 * (correlationFormat), which winston may run later; one table for every copy of this package (the ESM and CJS
 * builds), so a guard installed by one is read by the other. `undefined`: logged outside any scope.
 */
export const lineContexts = sharedState<{ byInfo: WeakMap<object, LineContext | undefined>; guards: number }>(
  '@ambient/winston-context.lines',
  () => ({ byInfo: new WeakMap(), guards: 0 }),
);

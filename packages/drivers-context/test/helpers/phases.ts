import { guardDrivers, type DriverGuard, type GuardDriversOptions } from '@ambient/drivers-context';

/** Every driver case runs twice: first as the driver behaves alone, then under guardDrivers. */
export const phases = ['without guard', 'with guard'] as const;
export type Phase = (typeof phases)[number];

/**
 * `body` once per phase, each in a describe named after it; in the guard's phase, guardDrivers(options()) is
 * installed before the phase's own hooks and tests, and disposed after them (one guard per process).
 */
export function describeEachPhase(options: () => GuardDriversOptions, body: (phase: Phase) => void): void {
  for (const phase of phases) {
    describe(phase, () => {
      let guard: DriverGuard | undefined;
      beforeAll(() => {
        if (phase === 'with guard') guard = guardDrivers(options());
      });
      afterAll(() => guard?.dispose());
      body(phase);
    });
  }
}

/**
 * A request whose first query opened a socket: without the guard the socket keeps its values for as long as it
 * lives (every driver, Node 20 to 26: the README's "A collectable" row), with it they are collected.
 */
export function expectCollectedOnlyWithGuard(phase: Phase, collected: boolean): void {
  expect(collected).toBe(phase === 'with guard');
}

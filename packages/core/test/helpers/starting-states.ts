import { AmbientError, Snapshot, Variable } from '@ambient/core';

/**
 * Every case runs from three starting states, as the TC39 AsyncContext reference tests do: with no context,
 * inside a run, and inside a Snapshot#run. Each state checks afterwards that the case left its own value as
 * it found it.
 */
const marker = new Variable<string>({ name: 'starting-state marker' });

export interface StartingState {
  readonly name: string;
  enter(body: () => unknown): Promise<void>;
}

export const startingStates: readonly StartingState[] = [
  {
    name: 'no context',
    async enter(body) {
      await body();
      expect(marker.get()).toBeUndefined();
    },
  },
  {
    name: 'inside a run',
    enter(body) {
      return marker.run('run', async () => {
        await body();
        expect(marker.get()).toBe('run');
      });
    },
  },
  {
    name: 'inside a Snapshot#run',
    enter(body) {
      const snapshot = marker.run('snapshot', () => new Snapshot());
      return snapshot.run(async () => {
        await body();
        expect(marker.get()).toBe('snapshot');
      });
    },
  },
];

/** Declares `it(title)` once per starting state. */
export function itFromEveryState(title: string, body: () => unknown): void {
  for (const state of startingStates) {
    it(`${title} [${state.name}]`, () => state.enter(body));
  }
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function expectAmbientError(fn: () => unknown, code: string): void {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(Error);
  expect((thrown as { code?: unknown }).code).toBe(code);
  expect(thrown instanceof AmbientError).toBe(true);
  // What the TC39 proposal and Node report as TypeError (a bad argument or receiver) is one, with its code.
  const typeErrors = ['ERR_AMBIENT_INVALID_ARGUMENT', 'ERR_AMBIENT_INVALID_RECEIVER'];
  expect((thrown as Error).name).toBe(typeErrors.includes(code) ? 'TypeError' : 'AmbientError');
  expect(thrown instanceof TypeError).toBe(typeErrors.includes(code));
}

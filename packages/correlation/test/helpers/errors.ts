import { AmbientError } from '@ambient/core';

/** `fn` throws an AmbientError with `code`; an INVALID_ARGUMENT one is a real TypeError, as Node's are. */
export function expectAmbientError(fn: () => unknown, code: string): void {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  expect(thrown instanceof AmbientError).toBe(true);
  expect((thrown as { code?: unknown }).code).toBe(code);
  expect((thrown as Error).constructor).toBe(code.endsWith('_INVALID_ARGUMENT') ? TypeError : AmbientError);
}

import type { ConformanceCase } from './case.js';
import type { ConformanceHarness } from './harness.js';
import { missingNeed, warnAboutProcessNeeds } from './needs.js';
import { conformanceCases, type ConformanceOptions } from './profiles.js';
import { createSession, withTimeout } from './session.js';

/** A test function: jest's, vitest's, mocha's or node:test's `it`. */
export interface TestFunction {
  (name: string, body: () => Promise<void>, timeoutMs?: number): void;
  /** Every one of those runners has it; the suite registers a case this process cannot run with it. */
  readonly skip?: (name: string, body: () => Promise<void>) => void;
}

/** The subset of jest, vitest or mocha that the suite registers its cases with. */
export interface TestRegistrar {
  describe(name: string, body: () => void): void;
  it: TestFunction;
  afterAll(body: () => Promise<void>): void;
}

// Room for the runner to report a case's own timeout before its test timeout fires.
const runnerMarginMs = 10_000;

/**
 * Registers the selected cases as tests. A case needing what the harness lacks is a failing test, never a
 * skipped one: an adapter that claims conformance must offer it. A case needing what this process lacks
 * (`node --expose-gc`) is skipped loudly, by name and on stderr, or fails where the runner cannot skip.
 */
export function describeConformance(
  harness: ConformanceHarness,
  registrar: TestRegistrar,
  options: ConformanceOptions = {},
): void {
  const cases = conformanceCases(harness, options);
  registrar.describe(`conformance: ${harness.name}`, () => {
    const session = createSession(harness);
    registrar.afterAll(() => session.close());
    warnAboutProcessNeeds(harness, cases);
    for (const testCase of cases) register(testCase);

    function register(testCase: ConformanceCase): void {
      const name = `${testCase.id} (${testCase.profile}): ${testCase.title}`;
      const missing = missingNeed(harness, testCase);
      if (missing?.from === 'process' && registrar.it.skip !== undefined) {
        // Skipped for a reason the test name states: this process cannot run the case (it lacks
        // --expose-gc); warnAboutProcessNeeds has said so on stderr too. A harness's missing capability fails.
        registrar.it.skip(`${name} [NOT RUN: ${missing.message}]`, () => Promise.resolve());
        return;
      }
      registrar.it(
        name,
        async () => {
          if (missing !== undefined) throw new Error(missing.message);
          await withTimeout(testCase.run(session.context), testCase.timeoutMs, testCase.id);
        },
        testCase.timeoutMs + runnerMarginMs,
      );
    }
  });
}

import type { CaseNeed, ConformanceCase } from './case.js';
import type { ConformanceHarness } from './harness.js';

/**
 * `globalThis.gc`, which node defines only when started with `--expose-gc`. The suite never switches the flag
 * on itself: V8 flags belong to whoever runs the process, and importing a test suite must change nothing.
 */
export function exposedGc(): (() => void) | undefined {
  const gc = (globalThis as { gc?: unknown }).gc;
  return typeof gc === 'function' ? (gc as () => void) : undefined;
}

export interface MissingNeed {
  readonly need: CaseNeed;
  /** Whose it is to supply: the harness's author, or whoever starts node. */
  readonly from: 'harness' | 'process';
  /** What is missing, in words a user can act on. */
  readonly message: string;
}

/** The first thing `testCase` needs that this harness or this process lacks; `undefined` when nothing is. */
export function missingNeed(harness: ConformanceHarness, testCase: ConformanceCase): MissingNeed | undefined {
  for (const need of testCase.needs) {
    if (need === 'setValue' && (harness.setValue === undefined || harness.getValue === undefined))
      return { need, from: 'harness', message: 'the harness offers no setValue/getValue' };
    if (need === 'readTrace' && harness.readTrace === undefined)
      return { need, from: 'harness', message: 'the harness offers no readTrace' };
    if (need === 'gc' && exposedGc() === undefined)
      return {
        need,
        from: 'process',
        message: 'node runs without --expose-gc: start it as `node --expose-gc …` to run this case',
      };
  }
  return undefined;
}

/** Says loudly, once per run, which cases this process cannot run and how to start it so that it can. */
export function warnAboutProcessNeeds(harness: ConformanceHarness, cases: readonly ConformanceCase[]): void {
  const skipped = cases.flatMap((testCase) => {
    const missing = missingNeed(harness, testCase);
    return missing?.from === 'process' ? [`${testCase.id} (${missing.message})`] : [];
  });
  if (skipped.length > 0)
    console.warn(`@ambient/conformance: ${harness.name}: NOT RUN in this process: ${skipped.join('; ')}`);
}

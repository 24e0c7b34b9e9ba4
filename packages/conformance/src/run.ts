import type { CaseProfile, CaseTag, ConformanceCase } from './case.js';
import type { ConformanceHarness } from './harness.js';
import { missingNeed, warnAboutProcessNeeds } from './needs.js';
import { conformanceCases, type ConformanceOptions } from './profiles.js';
import { createSession, withTimeout } from './session.js';

export interface CaseResult {
  readonly id: string;
  readonly title: string;
  readonly profile: CaseProfile;
  readonly tags: readonly CaseTag[];
  readonly outcome: 'pass' | 'fail' | 'unsupported';
  /** Why it failed, or what it needed and did not have. */
  readonly detail?: string;
  readonly durationMs: number;
}

export interface RunOptions extends ConformanceOptions {
  /** Called as each case finishes, for progress output. */
  readonly onResult?: (result: CaseResult) => void;
}

/**
 * Runs the selected cases in turn and reports each outcome; never throws for a failing case. A case needing
 * what the harness lacks is `unsupported`; one needing `node --expose-gc` is too, with a warning on stderr.
 */
export async function runConformance(harness: ConformanceHarness, options: RunOptions = {}): Promise<CaseResult[]> {
  // The case options alone: conformanceCases refuses any other key, onResult included.
  const { onResult: _onResult, ...caseOptions } = options;
  const cases = conformanceCases(harness, caseOptions);
  warnAboutProcessNeeds(harness, cases);
  const session = createSession(harness);
  const results: CaseResult[] = [];
  const report = (testCase: ConformanceCase, outcome: CaseResult['outcome'], detail: string | undefined, start = 0) => {
    const result: CaseResult = {
      id: testCase.id,
      title: testCase.title,
      profile: testCase.profile,
      tags: testCase.tags,
      outcome,
      ...(detail === undefined ? {} : { detail }),
      durationMs: start === 0 ? 0 : Date.now() - start,
    };
    results.push(result);
    options.onResult?.(result);
  };
  try {
    for (const testCase of cases) {
      const missing = missingNeed(harness, testCase);
      if (missing !== undefined) {
        report(testCase, 'unsupported', missing.message);
        continue;
      }
      const start = Date.now();
      try {
        await withTimeout(testCase.run(session.context), testCase.timeoutMs, testCase.id);
        report(testCase, 'pass', undefined, start);
      } catch (error) {
        report(testCase, 'fail', firstLine(error), start);
      }
    }
  } finally {
    await session.close();
  }
  return results;
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n')[0] ?? '').replace(/^AssertionError \[ERR_ASSERTION\]: /, '');
}

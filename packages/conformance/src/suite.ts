import { randomUUID } from 'node:crypto';
import { createConformanceApp, createRetentionTracker } from './app.js';
import { bodyCases } from './cases/bodies.js';
import { correlationCases } from './cases/correlation.js';
import { lifecycleCases } from './cases/lifecycle.js';
import { memoryCases } from './cases/memory.js';
import { requestIdCases } from './cases/request-id.js';
import { scopeCases } from './cases/scope.js';
import { traceContextCases } from './cases/trace-context.js';
import type { CaseContext, ConformanceCase } from './case.js';
import type { BodyParserPlacement, ConformanceHarness, RunningServer } from './harness.js';
import { Observations } from './observations.js';

/** Every case, for this harness (body cases are made once per body-parser placement it supports). */
export function conformanceCases(harness: ConformanceHarness): ConformanceCase[] {
  return [
    ...correlationCases,
    ...bodyCases(harness.bodyParsers ?? ['none']),
    ...scopeCases,
    ...requestIdCases,
    ...traceContextCases,
    ...lifecycleCases,
    ...memoryCases,
  ];
}

/** Servers started lazily, one per body-parser placement, shared by every case of one run. */
function createSession(harness: ConformanceHarness): { context: CaseContext; close(): Promise<void> } {
  const observations = new Observations();
  const retention = createRetentionTracker();
  const app = createConformanceApp(harness, observations, retention);
  const servers = new Map<BodyParserPlacement, Promise<RunningServer>>();
  const context: CaseContext = {
    harness,
    echoHeader: (harness.echoHeader ?? 'x-request-id').toLowerCase(),
    observations,
    retention,
    async server(bodyParser = (harness.bodyParsers ?? ['none'])[0] ?? 'none') {
      let running = servers.get(bodyParser);
      if (running === undefined) servers.set(bodyParser, (running = harness.start(app, { bodyParser })));
      return (await running).port;
    },
    probe: () => randomUUID(),
  };
  return {
    context,
    async close() {
      const started = await Promise.allSettled(servers.values());
      await Promise.all(started.flatMap((result) => (result.status === 'fulfilled' ? [result.value.close()] : [])));
    },
  };
}

function missingCapability(harness: ConformanceHarness, testCase: ConformanceCase): string | undefined {
  for (const need of testCase.needs ?? []) {
    if (need === 'setValue' && (harness.setValue === undefined || harness.getValue === undefined))
      return 'setValue/getValue';
    if (need === 'readTrace' && harness.readTrace === undefined) return 'readTrace';
  }
  return undefined;
}

/** The subset of jest, vitest or mocha that the suite registers its cases with. */
export interface TestRegistrar {
  describe(name: string, body: () => void): void;
  it(name: string, body: () => Promise<void>, timeoutMs?: number): void;
  afterAll(body: () => Promise<void>): void;
}

/**
 * Registers every case as a test. A case needing a capability the harness lacks is registered as a failing
 * test, never skipped: an adapter that claims conformance must offer it.
 */
export function describeConformance(harness: ConformanceHarness, registrar: TestRegistrar): void {
  registrar.describe(`conformance: ${harness.name}`, () => {
    const session = createSession(harness);
    registrar.afterAll(() => session.close());
    for (const testCase of conformanceCases(harness)) {
      registrar.it(
        `${testCase.id}: ${testCase.title}`,
        async () => {
          const missing = missingCapability(harness, testCase);
          if (missing !== undefined) throw new Error(`the harness offers no ${missing}, which this case needs`);
          await testCase.run(session.context);
        },
        testCase.timeoutMs,
      );
    }
  });
}

export interface CaseResult {
  readonly id: string;
  readonly title: string;
  readonly outcome: 'pass' | 'fail' | 'unsupported';
  /** Why it failed, or which capability was missing. */
  readonly detail?: string;
  readonly durationMs: number;
}

/** Runs every case in turn and reports each outcome; never throws for a failing case. */
export async function runConformance(harness: ConformanceHarness): Promise<CaseResult[]> {
  const session = createSession(harness);
  const results: CaseResult[] = [];
  try {
    for (const testCase of conformanceCases(harness)) {
      const started = Date.now();
      const missing = missingCapability(harness, testCase);
      if (missing !== undefined) {
        results.push({
          id: testCase.id,
          title: testCase.title,
          outcome: 'unsupported',
          detail: `no ${missing}`,
          durationMs: 0,
        });
        continue;
      }
      try {
        await withTimeout(testCase.run(session.context), testCase.timeoutMs, testCase.id);
        results.push({ id: testCase.id, title: testCase.title, outcome: 'pass', durationMs: Date.now() - started });
      } catch (error) {
        const detail =
          (error instanceof Error ? error.message : String(error))
            .split('\n')[0]
            ?.replace(/^AssertionError \[ERR_ASSERTION\]: /, '') ?? '';
        results.push({
          id: testCase.id,
          title: testCase.title,
          outcome: 'fail',
          detail,
          durationMs: Date.now() - started,
        });
      }
    }
  } finally {
    await session.close();
  }
  return results;
}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

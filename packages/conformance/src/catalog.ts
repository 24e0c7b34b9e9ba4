import { bodyCases } from './cases/bodies.js';
import { correlationCases } from './cases/correlation.js';
import { lifecycleCases } from './cases/lifecycle.js';
import { memoryCases } from './cases/memory.js';
import { requestIdCases } from './cases/request-id.js';
import { scopeCases } from './cases/scope.js';
import { traceContextCases } from './cases/trace-context.js';
import type { CaseSize, ConformanceCase } from './case.js';
import type { ConformanceHarness } from './harness.js';

/**
 * Every case, built at one size, in the order a report lists them. Body cases are made once per body-parser
 * placement the harness supports. Built on each call: a case holds no state between runs.
 */
export function catalog(harness: ConformanceHarness, size: CaseSize): ConformanceCase[] {
  return [
    ...correlationCases(size),
    ...bodyCases(harness.bodyParsers ?? ['none']),
    ...scopeCases(size),
    ...requestIdCases,
    ...traceContextCases,
    ...lifecycleCases,
    ...memoryCases(size),
  ];
}

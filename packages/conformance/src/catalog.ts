import { bodyCases } from './cases/bodies.js';
import { correlationCases } from './cases/correlation.js';
import { lifecycleCases } from './cases/lifecycle.js';
import { memoryCases } from './cases/memory.js';
import { requestIdCases } from './cases/request-id.js';
import { scopeCases } from './cases/scope.js';
import { soakCases, type SoakSize } from './cases/soak.js';
import { traceContextCases } from './cases/trace-context.js';
import type { CaseSize, ConformanceCase } from './case.js';
import type { ConformanceHarness } from './harness.js';

/**
 * Every case, built at one size, in the order a report lists them. Body cases are made once per body-parser
 * placement the harness supports; `soakSize` replaces the soak case's size. Built on each call: a case holds
 * no state between runs.
 */
export function catalog(harness: ConformanceHarness, size: CaseSize, soakSize?: SoakSize): ConformanceCase[] {
  return [
    // First, so that in a run of several profiles the soak's server is the first this process starts: what
    // loads lazily on a process's first request is then loaded inside the soak, where its retention shows.
    ...soakCases(size, soakSize),
    ...correlationCases(size),
    ...bodyCases(harness.bodyParsers ?? ['none']),
    ...scopeCases(size),
    ...requestIdCases,
    ...traceContextCases,
    ...lifecycleCases,
    ...memoryCases(size),
  ];
}

import assert from 'node:assert/strict';
import type { RetentionTracker } from './app.js';
import type { ClientResponse } from './client.js';
import type { BodyParserPlacement, ConformanceHarness } from './harness.js';
import type { Observations } from './observations.js';

/** One conformance case: plain data plus a run function, so it can become a test or a row of a report. */
export interface ConformanceCase {
  readonly id: string;
  readonly title: string;
  readonly timeoutMs: number;
  /** Harness capabilities the case needs; a harness without them gets "unsupported", not a pass. */
  readonly needs?: ReadonlyArray<'setValue' | 'readTrace'>;
  run(context: CaseContext): Promise<void>;
}

export interface CaseContext {
  readonly harness: ConformanceHarness;
  readonly echoHeader: string;
  readonly observations: Observations;
  readonly retention: RetentionTracker;
  /** The port of a server started with this body-parser placement (started once, then reused). */
  readonly server: (bodyParser?: BodyParserPlacement) => Promise<number>;
  /** A fresh probe token for `x-conformance-probe`. */
  readonly probe: () => string;
}

/** The request id the response echoed; fails when there is none. */
export function echoedId(response: ClientResponse, echoHeader: string): string {
  const value = response.headers[echoHeader];
  assert.equal(typeof value, 'string', `the response must echo the request id in "${echoHeader}"`);
  return value as string;
}

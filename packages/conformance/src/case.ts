import assert from 'node:assert/strict';
import type { RetentionTracker } from './app.js';
import type { ClientResponse } from './client.js';
import type { BodyParserPlacement, ConformanceHarness, RunningServer } from './harness.js';
import type { Observations } from './observations.js';

/**
 * Whose rule a case checks. `universal`: what any request-context library must get right (the context at
 * every hop, under concurrency, through bodies, keep-alive, errors, aborts, and released afterwards).
 * `ambient`: Ambient's own policy (which incoming request ids it honors, `traceparent`, writes outside a
 * scope), which another library may reasonably not share. `soak`: an operator's soak run, thousands of
 * requests on a fresh server, nothing crossed and nothing retained, its first request included.
 */
export type CaseProfile = 'universal' | 'ambient' | 'soak';

/** `slow`: thousands of requests, tens of seconds or more; the quick profile runs none. */
export type CaseTag = 'slow';

/**
 * What a case needs beyond `readRequestId`: harness members (`setValue`, meaning setValue and getValue;
 * `readTrace`), or `gc`, a `globalThis.gc` that node exposes only when started with `--expose-gc`.
 */
export type CaseNeed = 'setValue' | 'readTrace' | 'gc';

/**
 * The size a case is built at: `full` for the universal, ambient and soak profiles, `quick` for a first try
 * (the quick profile) or a run that fits CI (the soak-ci profile).
 */
export type CaseSize = 'full' | 'quick';

/** One conformance case: plain data plus a run function, so it can become a test or a row of a report. */
export interface ConformanceCase {
  readonly id: string;
  readonly title: string;
  readonly profile: CaseProfile;
  readonly tags: readonly CaseTag[];
  readonly needs: readonly CaseNeed[];
  /** A bound for a case that hangs, never a speed requirement: see timeoutFor. */
  readonly timeoutMs: number;
  run(context: CaseContext): Promise<void>;
}

export interface CaseContext {
  readonly harness: ConformanceHarness;
  /** The response header echoing the request id, lowercase. */
  readonly echoHeader: string;
  /** The request header a client sends its own request id in, lowercase. */
  readonly requestIdHeader: string;
  readonly observations: Observations;
  readonly retention: RetentionTracker;
  /** The port of a server started with this body-parser placement (started once, then reused). */
  readonly server: (bodyParser?: BodyParserPlacement) => Promise<number>;
  /**
   * A new server of the case's own, never shared: its very first request is the case's. The case closes it
   * (closing twice is harmless); one it leaves open is closed with the session.
   */
  readonly freshServer: (bodyParser?: BodyParserPlacement) => Promise<RunningServer>;
  /** A fresh probe token for `x-conformance-probe`. */
  readonly probe: () => string;
}

/** How many requests a bulk case sends, how many at a time, and whether that makes it slow. */
export interface BulkSize {
  readonly requests: number;
  readonly concurrency: number;
  readonly slow: boolean;
}

/**
 * A case's time bound: a minute, plus 20 ms a request. A loaded 2-core machine (two CPU-bound processes
 * beside the suite, coverage on) needs a fraction of that, so the bound only ever stops a case that hangs;
 * correctness never depends on how fast the machine is.
 */
export function timeoutFor(requests = 0): number {
  return 60_000 + requests * 20;
}

/** The request id the response echoed; fails when there is none. */
export function echoedId(response: ClientResponse, echoHeader: string): string {
  const value = response.headers[echoHeader];
  assert.equal(typeof value, 'string', `the response must echo the request id in "${echoHeader}"`);
  return value as string;
}

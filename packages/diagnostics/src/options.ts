import { readOptions, rule, rules, type OptionShape } from '@ambient/core/internal';
import { errors, warnings } from './errors.js';
import type { DataLoaderClass } from './data-loader.js';
import type { DiagnosticReport } from './reports.js';

export interface DiagnosticsOptions {
  /** A read that finds no scope throws ERR_AMBIENT_CONTEXT_LOST instead of warning (for tests). Default false. */
  strict?: boolean;
  /**
   * A closed request's scope still reachable this long after close, past a full collection, is reported.
   * Default 10000: longer than Node's keepAliveTimeout (5 s), since an idle keep-alive socket holds its last
   * request's values until it times out. Raise it above yours (a server behind a load balancer often has 65 s).
   */
  retainedAfterMs?: number;
  /**
   * One request in this many is watched for a scope retained after close (1: every request). Watching keeps a
   * scope until the next full collection; a leak on a route leaks on each of its requests, so a sample finds it.
   * Default 10.
   */
  retainedSampleEvery?: number;
  /** Timers armed in a request and still pending this long after it closed are reported. Default 1000. */
  timerGraceMs?: number;
  /** Emit each report as a process warning (stderr, `process.on('warning')`). Default true. */
  warnings?: boolean;
  /** Called with every report, as an object: ship it to your own logs, or assert on it in a test. */
  onReport?: (report: DiagnosticReport) => void;
  /**
   * Watch mysql2's TracingChannels (3.20+) for callbacks that run in another request's context. Subscribing
   * turns on mysql2's tracing, which adds to the cost of every query (benchmarks/README.md). Default true.
   */
  drivers?: boolean;
  /**
   * The DataLoader class (`import DataLoader from 'dataloader'`, version 2): report a loader shared between
   * requests, whose batches run one request's loads in another's context, with the place it was created.
   * Default: not watched.
   */
  dataLoader?: DataLoaderClass;
}

export type ResolvedOptions = Required<Omit<DiagnosticsOptions, 'onReport' | 'dataLoader'>> &
  Pick<DiagnosticsOptions, 'onReport' | 'dataLoader'>;

const durationRule = rule(
  'a whole number of milliseconds from 0 to 86400000',
  (value): value is number => Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 86_400_000,
);

const shape: OptionShape<DiagnosticsOptions> = {
  strict: rules.boolean,
  retainedAfterMs: durationRule,
  timerGraceMs: durationRule,
  retainedSampleEvery: rule(
    'a whole number from 1 to 1000000',
    (value): value is number => Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 1_000_000,
  ),
  warnings: rules.boolean,
  onReport: rules.function('(report: DiagnosticReport) => void'),
  drivers: rules.boolean,
  dataLoader: rule(
    'the DataLoader class (import DataLoader from "dataloader")',
    (value): value is DataLoaderClass =>
      typeof value === 'function' && typeof (value.prototype as { load?: unknown } | undefined)?.load === 'function',
  ),
};

export function resolveOptions(options: DiagnosticsOptions | undefined): ResolvedOptions {
  const given = readOptions<DiagnosticsOptions>(options, shape, { where: 'enableDiagnostics(options)', errors });
  return {
    strict: given.strict ?? false,
    retainedAfterMs: retainedAfter(given.retainedAfterMs),
    timerGraceMs: given.timerGraceMs ?? 1000,
    retainedSampleEvery: given.retainedSampleEvery ?? 10,
    warnings: given.warnings ?? true,
    onReport: given.onReport,
    drivers: given.drivers ?? true,
    dataLoader: given.dataLoader,
  };
}

/**
 * Node's HTTP server caches its Date header for a second on a timer armed in the first request of that second,
 * which holds that request's scope as long: a shorter age would report clean apps.
 */
const leastRetainedAfterMs = 1000;

function retainedAfter(given: number | undefined): number {
  if (given === undefined) return 10_000;
  if (given >= leastRetainedAfterMs) return given;
  warnings.retainedAfterRaised(given);
  return leastRetainedAfterMs;
}

// performance from perf_hooks, not the global: its clock is the one gc entries are timed on, in any realm.
import { constants, performance, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import type { Reporter } from './reporter.js';

/** A request whose scope is watched: registered as it opens, closed when its response closes. */
export interface WatchedRequest {
  readonly requestId: string;
  /** When its response closed (performance.now()); `undefined` while it is open. */
  closedAt: number | undefined;
  /** How a report names it, once closed. */
  route: string;
  reported: boolean;
}

/**
 * Watches the scopes of requests: each is registered with a FinalizationRegistry as it opens, and one still
 * there a while after its response closed, past a full (mark-compact) collection, is reachable from something
 * that outlived the request (a timer, a cache, an Error kept from a setImmediate: nodejs/node#66129,
 * openclaw/openclaw#126640). A young collection proves nothing, so none is reported before a full one; a quiet
 * process may go a long time without one, and then reports late, never wrongly. Registering as the scope opens
 * (not at close) spares each request a WeakRef to find its scope again, whose weak cell is garbage-collector work
 * under load (benchmarks/README.md#why-the-code-looks-the-way-it-does).
 */
export class RetainedScopes {
  readonly #watched = new Map<number, WatchedRequest>();
  readonly #registry = new FinalizationRegistry<number>((id) => {
    if (this.#watched.get(id)?.reported === true) this.#retainedNow--;
    this.#watched.delete(id);
  });
  readonly #reporter: Reporter;
  readonly #afterMs: number;
  #nextId = 0;
  /** When the latest full collections ended (performance.now()), the last few. */
  readonly #fullGcs: number[] = [];
  readonly #observer: PerformanceObserver;
  /** Closed requests reported as retained and not collected since. */
  #retainedNow = 0;
  /** The routes reported so far: a leak on a route is reported once, and counted every time. */
  readonly #reportedRoutes = new Set<string>();

  constructor(reporter: Reporter, afterMs: number) {
    this.#reporter = reporter;
    this.#afterMs = afterMs;
    this.#observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        if (!isFullCollection(entry)) continue;
        this.#fullGcs.push(entry.startTime + entry.duration);
        if (this.#fullGcs.length > 16) this.#fullGcs.shift();
      }
    });
    this.#observer.observe({ entryTypes: ['gc'] });
  }

  /** Watches `scope`, of a request that has just opened; close the returned entry when its response closes. */
  watch(scope: object, requestId: string): WatchedRequest {
    const id = this.#nextId++;
    const watched: WatchedRequest = { requestId, closedAt: undefined, route: '', reported: false };
    this.#watched.set(id, watched);
    this.#registry.register(scope, id);
    return watched;
  }

  /** Now, on the clock `closedAt` is kept on. */
  static now(): number {
    return performance.now();
  }

  /**
   * Reports every closed request past its age whose scope two full collections since, the later ended at least
   * 100 ms ago, have left alive: a finalizer runs as a task after its collection, and under load one collection's
   * tasks may not have run yet, but they have by the end of the next.
   */
  check(): void {
    const settled = performance.now() - 100;
    const collections = this.#fullGcs.filter((end) => end <= settled);
    if (collections.length < 2) return;
    // Closed before this, two collections have run since its age was reached.
    const dueBefore = collections[collections.length - 2]! - this.#afterMs;
    for (const watched of this.#watched.values()) {
      if (watched.reported || watched.closedAt === undefined || watched.closedAt > dueBefore) continue;
      watched.reported = true;
      this.#retainedNow++;
      this.#reporter.counts.retained++;
      if (this.#reportedRoutes.has(watched.route)) continue;
      this.#reportedRoutes.add(watched.route);
      this.#reporter.report(
        {
          kind: 'retained',
          code: 'WARN_AMBIENT_SCOPE_RETAINED',
          requestId: watched.requestId,
          route: watched.route,
          ageMs: performance.now() - watched.closedAt,
          pending: this.#retainedNow,
        },
        { counted: true },
      );
    }
  }

  /** Closed requests whose scopes full collections have left alive past their age. */
  get retainedNow(): number {
    return this.#retainedNow;
  }

  /** Closed requests still watched (not yet collected). */
  get watched(): number {
    let count = 0;
    for (const watched of this.#watched.values()) if (watched.closedAt !== undefined) count++;
    return count;
  }

  stop(): void {
    this.#observer.disconnect();
  }
}

function isFullCollection(entry: PerformanceEntry): boolean {
  const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
  return kind === constants.NODE_PERFORMANCE_GC_MAJOR;
}

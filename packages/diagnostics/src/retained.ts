// performance from perf_hooks, not the global: its clock is the one gc entries are timed on, in any realm.
import { constants, performance, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import type { Reporter } from './reporter.js';
import { rootTimers } from './root-timers.js';

interface Watched {
  readonly requestId: string;
  readonly route: string;
  readonly closedAt: number;
  reported: boolean;
}

/**
 * Watches the scopes of closed requests: each is registered with a FinalizationRegistry when its response
 * closes, and one still there a while after close, past a full (mark-compact) collection, is reachable from
 * something that outlived the request (a timer, a cache, an Error kept from a setImmediate: nodejs/node#66129,
 * openclaw/openclaw#126640). A young collection proves nothing, so none is reported before a full one; a quiet
 * process may go a long time without one, and then reports late, never wrongly.
 */
export class RetainedScopes {
  readonly #watched = new Map<number, Watched>();
  readonly #registry = new FinalizationRegistry<number>((id) => this.#watched.delete(id));
  readonly #reporter: Reporter;
  readonly #afterMs: number;
  #nextId = 0;
  /** When the latest full collections ended (performance.now()), the last few. */
  readonly #fullGcs: number[] = [];
  readonly #observer: PerformanceObserver;
  readonly #check: { stop(): void };

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
    this.#check = rootTimers.every(Math.max(50, Math.min(1000, afterMs / 4)), () => this.check());
  }

  /** `scope` belongs to a request whose response has just closed. */
  watch(scope: object, requestId: string, route: string): void {
    const id = this.#nextId++;
    this.#watched.set(id, { requestId, route, closedAt: performance.now(), reported: false });
    this.#registry.register(scope, id);
  }

  /**
   * Reports every watched scope past its age that a full collection, ended at least 100 ms ago (finalizers run
   * as tasks after it), has left alive.
   */
  check(): void {
    const settled = performance.now() - 100;
    // The latest full collection whose finalizers have had their time; one that just ended may not yet have.
    const lastSettledGc = Math.max(-Infinity, ...this.#fullGcs.filter((end) => end <= settled));
    const due = [...this.#watched.values()].filter(
      (watched) => !watched.reported && watched.closedAt + this.#afterMs <= lastSettledGc,
    );
    for (const watched of due) {
      watched.reported = true;
      this.#reporter.report({
        kind: 'retained',
        code: 'WARN_AMBIENT_SCOPE_RETAINED',
        requestId: watched.requestId,
        route: watched.route,
        ageMs: performance.now() - watched.closedAt,
        pending: this.retainedNow,
      });
    }
  }

  /** Closed requests whose scopes a full collection has left alive past their age. */
  get retainedNow(): number {
    let count = 0;
    for (const watched of this.#watched.values()) if (watched.reported) count++;
    return count;
  }

  /** Closed requests still watched (not yet collected). */
  get watched(): number {
    return this.#watched.size;
  }

  stop(): void {
    this.#check.stop();
    this.#observer.disconnect();
  }
}

function isFullCollection(entry: PerformanceEntry): boolean {
  const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
  return kind === constants.NODE_PERFORMANCE_GC_MAJOR;
}

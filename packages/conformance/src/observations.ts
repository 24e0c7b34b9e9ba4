/**
 * What the suite's app saw, per request, keyed by the probe token the client sends in `x-conformance-probe`.
 * Lets a case check observation points that run after the response was sent (`finish`, `close`, the error
 * handler), in the same process as the server.
 */
export const probeHeader = 'x-conformance-probe';

/** The point the suite's app records once its own `data`/`end` listeners are on the request. */
export const readingBody = 'reading-body';

export class Observations {
  readonly #byProbe = new Map<string, Map<string, unknown>>();
  readonly #waiters = new Set<() => void>();

  record(probe: string | undefined, point: string, value: unknown): void {
    if (probe === undefined) return;
    let points = this.#byProbe.get(probe);
    if (points === undefined) this.#byProbe.set(probe, (points = new Map<string, unknown>()));
    points.set(point, value);
    for (const wake of this.#waiters) wake();
  }

  get(probe: string, point: string): unknown {
    return this.#byProbe.get(probe)?.get(point);
  }

  has(probe: string, point: string): boolean {
    return this.#byProbe.get(probe)?.has(point) ?? false;
  }

  /**
   * Waits until `point` was recorded for `probe`, or fails after `timeoutMs`: a bound for a server that
   * never gets there, far beyond any machine's speed, whose timer keeps no process alive.
   */
  async waitFor(probe: string, point: string, timeoutMs = 60_000): Promise<unknown> {
    const deadline = Date.now() + timeoutMs;
    while (!this.has(probe, point)) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error(`the server never recorded "${point}" for probe ${probe}`);
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.#waiters.delete(wake);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(wake, remaining).unref();
        this.#waiters.add(wake);
      });
    }
    return this.get(probe, point);
  }
}

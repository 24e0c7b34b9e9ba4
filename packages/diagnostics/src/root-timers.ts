import { runInRoot } from '@ambient/core';

/*
 * Diagnostics' own timers: armed outside any request, so that they neither keep a request's values alive nor
 * count as a timer the request left behind, and with Node's timer functions as they were when this module
 * loaded, before timers.ts wraps the globals. Unref'd: diagnostics never keep a process running.
 */
const { setInterval, clearInterval } = globalThis;

export const rootTimers = {
  every(ms: number, tick: () => void): { stop(): void } {
    const handle = runInRoot(() => setInterval(tick, ms));
    handle.unref();
    return { stop: () => clearInterval(handle) };
  },
};

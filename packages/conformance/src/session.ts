import { randomUUID } from 'node:crypto';
import { createConformanceApp, createRetentionTracker } from './app.js';
import type { CaseContext } from './case.js';
import type { BodyParserPlacement, ConformanceHarness, RunningServer } from './harness.js';
import { Observations } from './observations.js';

export interface Session {
  readonly context: CaseContext;
  close(): Promise<void>;
}

/**
 * One run's shared state: servers started lazily, one per body-parser placement, shared by every case, and
 * the fresh servers a case starts for itself.
 */
export function createSession(harness: ConformanceHarness): Session {
  const observations = new Observations();
  const retention = createRetentionTracker();
  const app = createConformanceApp(harness, observations, retention);
  const servers = new Map<BodyParserPlacement, Promise<RunningServer>>();
  const freshServers = new Set<RunningServer>();
  const defaultPlacement = (harness.bodyParsers ?? ['none'])[0] ?? 'none';
  const requestIdHeader = (harness.requestIdHeader ?? 'x-request-id').toLowerCase();
  const context: CaseContext = {
    harness,
    echoHeader: (harness.echoHeader ?? requestIdHeader).toLowerCase(),
    requestIdHeader,
    observations,
    retention,
    async server(bodyParser = defaultPlacement) {
      let running = servers.get(bodyParser);
      if (running === undefined) servers.set(bodyParser, (running = harness.start(app, { bodyParser })));
      return (await running).port;
    },
    async freshServer(bodyParser = defaultPlacement) {
      const running = await harness.start(app, { bodyParser });
      let closing: Promise<void> | undefined;
      const fresh: RunningServer = {
        port: running.port,
        close() {
          // Forgotten once closed: the session must not be what keeps a closed server reachable.
          freshServers.delete(fresh);
          return (closing ??= running.close());
        },
      };
      freshServers.add(fresh);
      return fresh;
    },
    probe: () => randomUUID(),
  };
  return {
    context,
    async close() {
      await Promise.all([...freshServers].map((fresh) => fresh.close()));
      const started = await Promise.allSettled(servers.values());
      await Promise.all(started.flatMap((result) => (result.status === 'fulfilled' ? [result.value.close()] : [])));
    },
  };
}

/** Runs `promise` to its end, or fails after `ms` with a message naming what did not finish. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

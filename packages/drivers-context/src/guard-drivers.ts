import { readOptions, rule, rules, sharedState, type OptionShape } from '@ambient/core/internal';
import { guardChannels, type DriverName } from './channels.js';
import { errors, warnings } from './errors.js';
import { loadedDriversNeedingModule } from './loaded-drivers.js';
import {
  mysql2Patches,
  mysql2PoolDetach,
  mysql2PublishesChannels,
  nodeRedisPatches,
  pgPatches,
  type PatchPlan,
} from './patches.js';
import { logChannelQueries, type QueryListener } from './query-log.js';

export interface GuardDriversOptions {
  /** The `pg` module (`import pg from 'pg'`): patched, as pg publishes no channels (brianc/node-postgres#3650). */
  pg?: { Pool?: unknown; Client?: unknown };
  /**
   * The `mysql2` module: from 3.20 its channels are used, and only Pool#getConnection is patched, to open a
   * socket outside the request only when the pool may open one; before 3.20, patched.
   */
  mysql2?: { Pool?: unknown; Connection?: unknown };
  /** The `redis` module (node-redis): its client pool's `execute` is patched. */
  redis?: { RedisClientPool?: unknown };
  /**
   * Which drivers' TracingChannel events to use, loaded or not (subscribing costs a driver nothing until it
   * publishes). Default: all of them (`mysql2`, `ioredis`, `node-redis`).
   */
  channels?: ReadonlyArray<'mysql2' | 'ioredis' | 'node-redis'>;
  /**
   * Open connections outside any request (default `true`): a socket opened by a request's first query keeps
   * that request's values for as long as it lives, runs later callbacks in them and keeps it from being
   * collected. `false` leaves connection opening as it is.
   */
  detachConnections?: boolean;
  /** Opt-in: called once per finished query or command, in the caller's context (see queryLogListener). */
  onQuery?: QueryListener;
}

/** What a guard does, for a startup log line or a test; dispose() undoes it all. */
export interface DriverGuard {
  /** The TracingChannels bound. */
  readonly channels: readonly string[];
  /** The methods patched (where a driver publishes no channels). */
  readonly patched: readonly string[];
  dispose(): void;
}

const knownChannelDrivers = ['mysql2', 'ioredis', 'node-redis'] as const;

const moduleRule = rule(
  'the module object (import pg from "pg")',
  (value): value is object => (typeof value === 'object' || typeof value === 'function') && value !== null,
);

const optionShape: OptionShape<GuardDriversOptions> = {
  pg: moduleRule,
  mysql2: moduleRule,
  redis: moduleRule,
  channels: rule(
    `an array of ${knownChannelDrivers.map((name) => `'${name}'`).join(', ')}`,
    (value): value is Array<(typeof knownChannelDrivers)[number]> =>
      Array.isArray(value) && value.every((name) => (knownChannelDrivers as readonly unknown[]).includes(name)),
  ),
  detachConnections: rules.boolean,
  onQuery: rules.function('(event: QueryEvent) => void'),
};

/**
 * One guard per process, whichever copy of this package installed it (two would bind every channel twice), and
 * what it binds and patches, for @ambient/diagnostics' capability line.
 */
const active = sharedState<{
  guard: { readonly channels: readonly string[]; readonly patched: readonly string[] } | undefined;
}>('@ambient/drivers-context.guard', () => ({ guard: undefined }));

/**
 * One call at startup: callbacks of pooled connections and of queries run in the request that made the call,
 * not in the one that released the connection or opened the socket, and connections open outside any request.
 * Where a driver publishes TracingChannel events (mysql2 3.20+, ioredis 5.11+, @redis/client 5.12+) they are
 * used, under ESM too; pg, mysql2 before 3.20 and node-redis's client pool are patched, for the modules passed in.
 *
 *     import pg from 'pg';
 *     import mysql2 from 'mysql2';
 *     guardDrivers({ pg, mysql2 });
 */
export function guardDrivers(options?: GuardDriversOptions): DriverGuard {
  const given = readOptions<GuardDriversOptions>(options, optionShape, { where: 'guardDrivers(options)', errors });
  if (active.guard !== undefined) throw errors.alreadyGuarded();
  const notPassed = loadedDriversNeedingModule().filter((name) => given[name] === undefined);
  if (notPassed.length > 0) warnings.notPassed(notPassed.join(', '));
  const detach = given.detachConnections ?? true;
  const channelDrivers = new Set<DriverName>(given.channels ?? knownChannelDrivers);
  const plans: PatchPlan[] = [];
  if (given.pg !== undefined) plans.push(...pgPatches(given.pg, detach, given.onQuery));
  const mysql2 = given.mysql2;
  const mysql2Channels = mysql2 !== undefined && mysql2PublishesChannels(mysql2);
  if (mysql2 !== undefined && !mysql2Channels) plans.push(...mysql2Patches(mysql2, detach, given.onQuery));
  if (given.redis !== undefined) plans.push(...nodeRedisPatches(given.redis));

  let channelResult = guardChannels(channelDrivers, detach);
  if (channelResult === undefined && mysql2Channels) {
    // No channel binding on the AsyncContext backend: a mysql2 3.20+ passed in is patched instead.
    // Without onQuery: its channels still report its queries, as logChannelQueries subscribes and binds nothing.
    plans.push(...mysql2Patches(mysql2, detach, undefined));
  } else if (mysql2Channels && detach && channelDrivers.has('mysql2')) {
    // Its pool's calls that will not open a socket stay in the request; a copy not passed in detaches them all.
    plans.push(...mysql2PoolDetach(mysql2));
  }
  channelResult ??= { channels: [], undo: () => undefined };
  const undoQueryLog = given.onQuery === undefined ? () => undefined : logChannelQueries(channelDrivers, given.onQuery);

  const patched: string[] = [];
  const unpatches: Array<() => void> = [];
  for (const plan of plans) {
    const unpatch = plan.apply();
    if (unpatch === undefined) continue;
    patched.push(plan.name);
    unpatches.push(unpatch);
  }
  active.guard = { channels: channelResult.channels, patched };
  let disposed = false;
  const undoChannels = channelResult.undo;
  return {
    channels: channelResult.channels,
    patched,
    dispose() {
      if (disposed) return;
      disposed = true;
      undoChannels();
      undoQueryLog();
      for (const unpatch of unpatches.reverse()) unpatch();
      active.guard = undefined;
    },
  };
}

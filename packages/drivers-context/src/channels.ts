import {
  asyncContextImplementation,
  bindChannelContext,
  captureContext,
  enterCapturedContext,
  keptTracingChannel,
  type CapturedContext,
} from '@ambient/core/internal';
import type { TracingChannel } from 'node:diagnostics_channel';

/*
 * The drivers that publish Node's TracingChannel events: mysql2 from 3.20 (lib/tracing.js), ioredis from 5.11,
 * @redis/client from 5.12. A callback they trace with traceCallback runs inside the channel's `asyncStart`
 * (Node 20 to 26): bound to the context recorded at `start`, it runs in its caller's context instead of the one
 * that released a pooled connection (DataDog/dd-trace-js#8826) or opened the socket. Promise paths
 * (tracePromise) already keep their caller's context and need nothing.
 */

/** Where a traced call's caller context is kept, on the driver's own context object: a symbol nobody lists. */
const kCaller = Symbol('@ambient/drivers-context.caller');

export type DriverName = 'mysql2' | 'ioredis' | 'node-redis' | 'pg';

interface GuardedChannel {
  readonly driver: DriverName;
  readonly name: string;
  /** Its callbacks (traceCallback) run back in the caller's context. */
  readonly restoresCallbacks: boolean;
  /** What it traces may open a connection, which then keeps the context it was opened in for ever. */
  readonly opensConnections: boolean;
}

export const guardedChannels: readonly GuardedChannel[] = [
  { driver: 'mysql2', name: 'mysql2:query', restoresCallbacks: true, opensConnections: false },
  { driver: 'mysql2', name: 'mysql2:execute', restoresCallbacks: true, opensConnections: false },
  // pool.getConnection(cb), and pool.query/execute through it: the queued callback and the pool's new sockets.
  { driver: 'mysql2', name: 'mysql2:pool:connect', restoresCallbacks: true, opensConnections: true },
  // Connects and reconnects, lazy ones included: the socket then keeps no request alive and its events see none.
  { driver: 'ioredis', name: 'ioredis:connect', restoresCallbacks: false, opensConnections: true },
  { driver: 'node-redis', name: 'node-redis:connect', restoresCallbacks: false, opensConnections: true },
];

/** A driver's context object, where it can take our field: Node 26 passes a frozen one when none is given. */
export function writable(message: unknown): message is Record<symbol, unknown> {
  return typeof message === 'object' && message !== null && Object.isExtensible(message);
}

/** `start`: records the caller's context, once (the query log's `start` records it too). */
export function recordCaller(message: unknown): void {
  if (writable(message) && !(kCaller in message)) message[kCaller] = captureContext();
}

/** The context recorded at `start`; where none was (guarded mid-call), the current one: never throws. */
export function callerOf(message: unknown): CapturedContext | undefined {
  if (typeof message === 'object' && message !== null && kCaller in message) {
    return (message as Record<symbol, CapturedContext | undefined>)[kCaller];
  }
  return captureContext();
}

/**
 * The driver whose patched method is running a call that will not open a connection (mysql2PoolDetach: a pool
 * with a free connection, or one that will queue the call), until that call's `start` takes it. A channel's
 * `start` tells nothing of the pool, so without this every mysql2 getConnection would leave the request and pay
 * a switch back. The channel still detaches every call this is not set for, so a copy of mysql2 nobody passed
 * in opens its sockets outside requests too. Taken by the first `start` of that driver, so that nothing the
 * call does next (an `acquire` listener's own query) inherits it.
 */
let stayingDriver: DriverName | undefined;

/** Calls `fn`, a call of `driver` that opens no connection, with its channel's `start` left in the request. */
export function stayingInRequest<R>(driver: DriverName, fn: () => R): R {
  const prior = stayingDriver;
  stayingDriver = driver;
  try {
    return fn();
  } finally {
    stayingDriver = prior;
  }
}

/**
 * Subscribes the `start` and `end` of a `driver` call that may open a connection: `start` records the caller
 * (where `records`) and leaves the request, unless a patched caller said the call opens none; `end`, which Node
 * publishes when the call returns or throws, enters the caller again. Subscribers, not Channel#bindStore, which
 * enters a store on every call, even where the call stays in its caller's context (a warm pool). Returns the
 * unsubscribing function; `end` stays subscribed until every call it detached has ended, since a call whose
 * `end` went unheard would leave its caller in no context.
 */
function subscribeDetaching(channel: TracingChannel<object, object>, driver: DriverName, records: boolean): () => void {
  // Where a call this pair detached keeps the context to go back to, on the driver's own context object: a key
  // of this pair's own, so that an `end` still waiting after dispose() never takes a later guard's call.
  const kReturnTo = Symbol('@ambient/drivers-context.return-to');
  let detached = 0;
  let closing = false;
  const start = (message: unknown): void => {
    if (records) recordCaller(message);
    if (stayingDriver === driver) {
      stayingDriver = undefined;
      return;
    }
    const caller = captureContext();
    if (caller === undefined || !writable(message)) return;
    message[kReturnTo] = caller;
    detached++;
    enterCapturedContext(undefined);
  };
  const end = (message: unknown): void => {
    if (typeof message !== 'object' || message === null) return;
    const caller = (message as Record<symbol, CapturedContext | undefined>)[kReturnTo];
    if (caller === undefined) return;
    enterCapturedContext(caller);
    // Cleared, not deleted: a delete would turn the driver's context object into a slow dictionary.
    (message as Record<symbol, unknown>)[kReturnTo] = undefined;
    if (--detached === 0 && closing) channel.end.unsubscribe(end);
  };
  channel.start.subscribe(start);
  channel.end.subscribe(end);
  return () => {
    channel.start.unsubscribe(start);
    closing = true;
    if (detached === 0) channel.end.unsubscribe(end);
  };
}

export interface ChannelGuardResult {
  readonly channels: readonly string[];
  readonly undo: () => void;
}

/** Binds the guarded channels of `drivers`; `undefined` where channels cannot bind (the AsyncContext backend). */
export function guardChannels(
  drivers: ReadonlySet<DriverName>,
  detachConnections: boolean,
): ChannelGuardResult | undefined {
  // Values in an AsyncContext.Variable: no channel can enter them (bindChannelContext, enterCapturedContext).
  if (asyncContextImplementation() === 'AsyncContext') return undefined;
  const undos: Array<() => void> = [];
  const names: string[] = [];
  for (const guarded of guardedChannels) {
    if (!drivers.has(guarded.driver)) continue;
    const detaches = guarded.opensConnections && detachConnections;
    if (!guarded.restoresCallbacks && !detaches) continue;
    const channel = keptTracingChannel(guarded.name);
    if (detaches) undos.push(subscribeDetaching(channel, guarded.driver, guarded.restoresCallbacks));
    if (guarded.restoresCallbacks) {
      const unbind = bindChannelContext(channel.asyncStart, callerOf);
      if (unbind === undefined) return undoAll(undos);
      undos.push(unbind);
      // A detaching `start` records the caller already; a second subscriber would cost every call again.
      if (!detaches) {
        channel.start.subscribe(recordCaller);
        undos.push(() => channel.start.unsubscribe(recordCaller));
      }
    }
    names.push(guarded.name);
  }
  return { channels: names, undo: () => undoAll(undos) };
}

function undoAll(undos: ReadonlyArray<() => void>): undefined {
  for (const undo of undos) undo();
  return undefined;
}

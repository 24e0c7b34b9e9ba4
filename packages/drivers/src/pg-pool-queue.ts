import { bindFirstCall, captureContext, runInCapturedContext, type CapturedContext } from '@ambient/core/adapter';
import { bindLastCallback, patchMethod } from './patch-method.js';

/*
 * pg-pool hands a waiting request its client from the release of the request that held it: `_release` pulses
 * the queue, and `_acquireClient` emits `acquire` (and `connect`, for a client opened for it) and calls the
 * waiter back, all in the releaser's context. The guard binds the callback back to the waiter; these two
 * patches give the waiter's events its context too, so a pino line in an `acquire` listener names the request
 * that takes the client, not the one that let it go (the pg-pool counterpart of DataDog/dd-trace-js#8826).
 * Both are pg-pool's private `_pendingQueue` and `_acquireClient(client, pendingItem, idleListener, isNew)`,
 * as in pg-pool 3.x (pg 8); where either is missing or differs, nothing is recorded and nothing changes.
 */

/** The waiter's context on the pending item it queued (outsideAnyScope where it made none). */
const kWaiter = Symbol('@ambient/drivers-context.waiter');
const outsideAnyScope = Symbol('@ambient/drivers-context.outside-any-scope');

type Waiter = CapturedContext | typeof outsideAnyScope;

interface PendingItem {
  [kWaiter]?: Waiter;
}

/**
 * Pool#connect (and Pool#query, which goes through it): its callback bound to the caller for one call, and the
 * caller recorded on the item it queued. pg-pool queues every connect that finds no client to open, a warm
 * pool's too, and takes it on the next tick, in the caller's own context, where nothing is entered.
 */
export function recordsWaiter(pool: object | undefined): (() => void) | undefined {
  return patchMethod(
    pool,
    'connect',
    (original) =>
      function (this: unknown, ...args: unknown[]) {
        const queue = (this as { _pendingQueue?: unknown })._pendingQueue;
        const before = Array.isArray(queue) ? queue.length : -1;
        const result = Reflect.apply(original, this, bindLastCallback(args, bindFirstCall));
        if (before >= 0 && (queue as unknown[]).length > before) {
          const item = (queue as unknown[])[(queue as unknown[]).length - 1];
          if (typeof item === 'object' && item !== null) {
            (item as PendingItem)[kWaiter] = captureContext() ?? outsideAnyScope;
          }
        }
        return result;
      },
  );
}

/** Pool#_acquireClient: run in the context of the request that queued the item it serves. */
export function acquiresInWaiter(pool: object | undefined): (() => void) | undefined {
  return patchMethod(
    pool,
    '_acquireClient',
    (original) =>
      function (this: unknown, client: unknown, item: unknown, idleListener: unknown, isNew: unknown) {
        const waiter = typeof item === 'object' && item !== null ? (item as PendingItem)[kWaiter] : undefined;
        const caller = waiter === outsideAnyScope ? undefined : waiter;
        // A warm pool serves the item on the next tick of the connect that queued it, in its caller's context.
        if (waiter === undefined || caller === captureContext()) {
          return original.call(this, client, item, idleListener, isNew);
        }
        return runInCapturedContext(caller, () => original.call(this, client, item, idleListener, isNew));
      },
  );
}

import { runInRoot } from '@ambient/core';
import { bindFirstCall, captureContext, runInCapturedContext, type CapturedContext } from '@ambient/core/internal';
import { bindLastCallback, patchMethod } from './patch-method.js';

/*
 * pg-pool hands a waiting request its client from the release of the request that held it (`_release` pulses
 * the queue; `_acquireClient` emits `acquire`, and `connect` for a new client, and calls the waiter back), all in
 * the releaser's context: the pg-pool counterpart of DataDog/dd-trace-js#8826. These patches run the waiter's
 * events in its own context, and arm each client's lifetime timer (maxLifetimeSeconds) outside any request,
 * where it would otherwise keep the request that opened the client alive with it (sequelize/sequelize#10462's
 * pattern). They rely on pg-pool 3.14's private `_pendingQueue`, `newClient(pendingItem)`, `_afterConnect` and
 * `_acquireClient(client, pendingItem, idleListener, isNew)`: a method that is missing is not patched, and an
 * item that is not where pg-pool puts it is neither recorded nor entered.
 */

/** Where pg-pool's pending item carries the Waiter that queued it. */
const kWaiter = Symbol('@ambient/drivers-context.waiter');

/**
 * The context of the request that queued an item (`undefined`: outside any scope). An object of its own, so that
 * `util.inspect` of a pool, which prints its queue, shows a name rather than the request's values.
 */
class Waiter {
  constructor(readonly context: CapturedContext | undefined) {}

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return 'Waiter [request context]';
  }
}

interface PendingItem {
  [kWaiter]?: Waiter;
}

function isItem(value: unknown): value is PendingItem {
  return typeof value === 'object' && value !== null;
}

/** Records the current context as the item's waiter. */
function record(item: PendingItem): void {
  item[kWaiter] = new Waiter(captureContext());
}

/** Call directly: no waiter is recorded on the item, or its context is the one current. */
const stay = Symbol('@ambient/drivers-context.stay');

/**
 * What to enter to serve `item`: its waiter's context (`undefined`: outside any scope), or `stay`. Not a waiter
 * that timed out (pg-pool's `timedOut`, set where connectionTimeoutMillis ran out while its client was being
 * opened): it has had its error, and pg-pool releases the client it no longer wants, arming the idle timer,
 * which would keep the waiter's request for idleTimeoutMillis.
 */
function waiterToEnter(item: unknown): CapturedContext | undefined | typeof stay {
  const waiter = isItem(item) ? item[kWaiter] : undefined;
  if (waiter === undefined || (item as { timedOut?: unknown }).timedOut === true) return stay;
  // A warm pool serves the item on the next tick of the connect that queued it, in its caller's context.
  return waiter.context === captureContext() ? stay : waiter.context;
}

/**
 * Pool#connect (and Pool#query, which goes through it): its callback bound to the caller for one call, and the
 * caller recorded on the item it queued. pg-pool queues every connect that finds no client to open, a warm
 * pool's too, and takes it on the next tick, in the caller's own context, where nothing is entered. Recording
 * only where no client is free would miss an item a client released in the same tick is handed to, from the
 * releaser (test/pg.test.ts, "X and Y queued while a client is free").
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
          if (isItem(item)) record(item);
        }
        return result;
      },
  );
}

/**
 * Pool#newClient(pendingItem): a client opened for an item, run in its waiter (pg-pool's `onConnect` hook, and a
 * failed connect's callback, then run there too). A connect that finds room opens one at once and queues
 * nothing: its item is recorded here, in its caller.
 */
export function opensForWaiter(pool: object | undefined): (() => void) | undefined {
  return patchMethod(
    pool,
    'newClient',
    (original) =>
      function (this: unknown, item: unknown) {
        if (isItem(item) && item[kWaiter] === undefined) record(item);
        const context = waiterToEnter(item);
        if (context === stay) return original.call(this, item);
        return runInCapturedContext(context, () => original.call(this, item));
      },
  );
}

/**
 * Pool#_afterConnect: outside any request. It arms the client's maxLifetimeSeconds timer, which would keep the
 * context it was armed in for the client's lifetime, and the timer's own `_acquireClient` of an expired idle
 * client serves no request. The item's `_acquireClient` then enters its waiter.
 */
export function armsLifetimeOutside(pool: object | undefined): (() => void) | undefined {
  return patchMethod(
    pool,
    '_afterConnect',
    (original) =>
      function (this: unknown, ...args: unknown[]) {
        return runInRoot(() => Reflect.apply(original, this, args));
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
        const context = waiterToEnter(item);
        if (context === stay) return original.call(this, client, item, idleListener, isNew);
        return runInCapturedContext(context, () => original.call(this, client, item, idleListener, isNew));
      },
  );
}

import { requestContext } from '@ambient/core';
import { keptTracingChannel, scopeObject } from '@ambient/core/internal';
import type { Reporter } from './reporter.js';

/**
 * Driver callbacks that run in another request's context: the pool hand-off bug (a queued getConnection
 * callback runs in the context of whoever released the connection: DataDog/dd-trace-js#8826). Where a driver
 * publishes TracingChannel events, `start` tells who made the call and `asyncStart` where its callback runs;
 * the two must be the same request. With @ambient/drivers-context's guard on they are (it binds asyncStart,
 * which runs before this subscriber); without it, each crossing is reported. pg publishes no channels
 * (brianc/node-postgres#3650), so its pools are not watched here.
 */
const channels = ['mysql2:query', 'mysql2:execute', 'mysql2:pool:connect'];

/** The current request's id, read without counting as a lost read where there is none. */
const currentRequestId = (): string | undefined => scopeObject(requestContext)?.requestId;

export function watchDriverChannels(reporter: Reporter): () => void {
  const callers = new WeakMap<object, string | undefined>();
  const undos: Array<() => void> = [];
  for (const name of channels) {
    const channel = keptTracingChannel(name);
    const handlers = {
      start(message: unknown) {
        if (typeof message === 'object' && message !== null) callers.set(message, currentRequestId());
      },
      asyncStart(message: unknown) {
        if (typeof message !== 'object' || message === null) return;
        const owner = callers.get(message);
        const found = currentRequestId();
        // None at all is a lost context, not a crossed one: a read in the callback reports it.
        if (owner === undefined || found === undefined || owner === found) return;
        reporter.crossed(`${name} callback`, owner, found);
      },
    };
    channel.subscribe(handlers as Parameters<typeof channel.subscribe>[0]);
    undos.push(() => channel.unsubscribe(handlers as Parameters<typeof channel.subscribe>[0]));
  }
  return () => undos.forEach((undo) => undo());
}

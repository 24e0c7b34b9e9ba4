import diagnosticsChannel, { tracingChannel, type TracingChannel } from 'node:diagnostics_channel';

/**
 * Kept on Node's diagnostics_channel module rather than on the registry: a test runner gives each test file a
 * global of its own (jest), while built-in modules are one object for all of them.
 */
const kKept = Symbol.for('@ambient/core.kept-tracing-channels.v1');
const holder = diagnosticsChannel as unknown as { [kKept]?: Map<string, TracingChannel<unknown, object>> };

/**
 * The TracingChannel named `name`, kept for the life of the process, so that every Ambient package gets the very
 * object a driver publishes on. Node 20 can lose a collected channel's name from its map when the same name is
 * created again, and then hands out an object nobody publishes on (nodejs/node#59910).
 */
export function keptTracingChannel(name: string): TracingChannel<unknown, object> {
  const kept = (holder[kKept] ??= new Map<string, TracingChannel<unknown, object>>());
  let channel = kept.get(name);
  if (channel === undefined) {
    channel = tracingChannel(name);
    kept.set(name, channel);
  }
  return channel;
}

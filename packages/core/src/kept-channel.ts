import diagnosticsChannel, { tracingChannel, type TracingChannel } from 'node:diagnostics_channel';

// On Node's module rather than the registry: jest gives each test file a global, not a diagnostics_channel, of its own.
const kKept = Symbol.for('@ambient/core.kept-tracing-channels.v1');
const holder = diagnosticsChannel as unknown as { [kKept]?: Map<string, TracingChannel> };

/**
 * The TracingChannel named `name`, never collected, so that every Ambient package gets the object a driver
 * publishes on: Node 20 can lose a collected name from its map and hand out another (nodejs/node#59910).
 */
export function keptTracingChannel(name: string): TracingChannel {
  const kept = (holder[kKept] ??= new Map<string, TracingChannel>());
  let channel = kept.get(name);
  if (channel === undefined) {
    channel = tracingChannel(name);
    kept.set(name, channel);
  }
  return channel;
}

import diagnosticsChannel, { tracingChannel, type TracingChannel } from 'node:diagnostics_channel';

/** Where the kept channels live: on Node's own diagnostics_channel module, the one object every realm shares. */
const kKept = Symbol.for('@ambient/core.kept-tracing-channels.v1');
const holder = diagnosticsChannel as unknown as { [kKept]?: Map<string, TracingChannel<unknown, object>> };

/**
 * The TracingChannel named `name`, kept by this process for as long as it runs: every copy of every Ambient
 * package that asks for a name gets the very object a driver publishes on.
 *
 * Node keeps its channels by name in a map of weak references, and before nodejs/node#59910 (in Node 22 and
 * later, not in Node 20) a channel collected and then created again under the same name could lose its entry
 * to the first one's finalizer: the driver then publishes on an object `tracingChannel(name)` no longer
 * returns, and a subscriber or `bindStore` made after that sees nothing. That happens when a driver is loaded
 * again (a test runner's fresh module registry for each test file, with a garbage collection in between), and
 * was seen here as guardDrivers binding nothing under jest on Node 20. A channel held here is never collected,
 * so no name is created twice. They are held on the `node:diagnostics_channel` module itself, not on
 * `globalThis`: jest gives each test file a global of its own, and Node's built-in modules are the same in all.
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

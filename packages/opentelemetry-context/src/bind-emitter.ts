import type { EventEmitter } from 'node:events';

type Listener = (...args: unknown[]) => unknown;
type EventName = string | symbol;
/** Each event's original listeners and the wrappers registered in their place. */
type ListenerMap = Map<EventName, WeakMap<Listener, Listener>>;

const addMethods = ['on', 'addListener', 'once', 'prependListener', 'prependOnceListener'] as const;
const removeMethods = ['removeListener', 'off'] as const;

/**
 * OpenTelemetry's bind(context, emitter): the emitter is patched in place so that every listener added from
 * now on runs in `context`, and removeListener/off/removeAllListeners still work with the original listener.
 * `mapKey` is per context manager: two managers patch the same emitter independently (their patches stack),
 * and binding an emitter again with the same manager keeps the first binding (OpenTelemetry's behaviour).
 * http instrumentation binds every request and response this way, so their `data`/`end`/`close` listeners
 * run in the server span's context rather than the parser's (nodejs/node#41285).
 */
export function bindEmitterToContext(
  emitter: EventEmitter,
  mapKey: symbol,
  wrap: (listener: Listener) => Listener,
): void {
  const target = emitter as unknown as Record<string | symbol, unknown>;
  if (target[mapKey] !== undefined) return;
  const map: ListenerMap = new Map();
  Object.defineProperty(emitter, mapKey, { value: map, configurable: true, enumerable: false, writable: true });
  // Node's once() registers through this.on(); while one of our add methods runs, a nested call must not wrap
  // (or record) the internal onceWrapper a second time.
  let adding = false;

  for (const name of addMethods) {
    const original = target[name];
    if (typeof original !== 'function') continue;
    target[name] = function (this: EventEmitter, event: EventName, listener: Listener): unknown {
      if (adding || typeof listener !== 'function') return (original as Listener).call(this, event, listener);
      const wrapped = wrap(listener);
      let listeners = map.get(event);
      if (listeners === undefined) map.set(event, (listeners = new WeakMap()));
      listeners.set(listener, wrapped);
      adding = true;
      try {
        return (original as Listener).call(this, event, wrapped);
      } finally {
        adding = false;
      }
    };
  }
  for (const name of removeMethods) {
    const original = target[name];
    if (typeof original !== 'function') continue;
    target[name] = function (this: EventEmitter, event: EventName, listener: Listener): unknown {
      const wrapped = map.get(event)?.get(listener);
      return (original as Listener).call(this, event, wrapped ?? listener);
    };
  }
  const originalRemoveAll = target['removeAllListeners'];
  if (typeof originalRemoveAll === 'function') {
    target['removeAllListeners'] = function (this: EventEmitter, ...args: [EventName?]): unknown {
      if (args.length === 0) map.clear();
      else map.delete(args[0]!);
      return (originalRemoveAll as Listener).apply(this, args);
    };
  }
}

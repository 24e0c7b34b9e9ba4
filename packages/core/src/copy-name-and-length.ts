import { forwardingFunction, type Forward } from './forwarding-function.js';

/**
 * A function that forwards to `forward`, with the `length` and `name` the spec's CopyNameAndLength(F, target,
 * prefix) gives it. AsyncContext.Snapshot.wrap takes that step from the ShadowRealm proposal
 * (tc39/proposal-async-context spec.html, tc39/proposal-shadowrealm), the same one Function.prototype.bind
 * follows:
 *
 * 1. HasOwnProperty(target, "length"), then Get(target, "length"): a Number becomes the length (+Infinity
 *    stays, -Infinity and NaN give 0, others are truncated towards zero and kept at 0 or more); anything else,
 *    or no own property, gives 0.
 * 2. Get(target, "name"): a String is kept, anything else becomes the empty string; the name is `prefix`, a
 *    space, and that string ("wrapped fn", or "wrapped " for an anonymous function).
 *
 * The reads happen in that order and an exception from any of them (a throwing getter, a Proxy trap) passes
 * through before anything is created. Setting a name costs some 700 ns on every Node line (any change to a
 * function's `name` property does), so this is for the functions whose shape a user sees; listeners bound
 * inside Ambient keep the cheaper `length`-only path (forwardingFunction).
 */
export function functionWithNameAndLength(
  target: object,
  prefix: string,
  forward: Forward,
): (...args: unknown[]) => unknown {
  const length = lengthOf(target);
  const name = Reflect.get(target, 'name') as unknown;
  const wrapper = forwardingFunction(length, forward);
  Object.defineProperty(wrapper, 'name', {
    value: `${prefix} ${typeof name === 'string' ? name : ''}`,
    writable: false,
    enumerable: false,
    configurable: true,
  });
  return wrapper;
}

/** Steps 2 to 5 of CopyNameAndLength: the length of a wrapper of `target` that takes no arguments of its own. */
export function lengthOf(target: object): number {
  if (!Object.prototype.hasOwnProperty.call(target, 'length')) return 0;
  // A property load, the same Get as Reflect.get(target, 'length'): V8 serves a function's `length` accessor
  // from the load's inline cache, where Reflect.get goes through its runtime (some 575 instructions a call on
  // Node 24, paid for every listener bound to a request: benchmarks/README.md, "Frameworks in instructions").
  const length = (target as { readonly length?: unknown }).length;
  if (typeof length !== 'number' || Number.isNaN(length) || length <= 0) return 0;
  return length === Infinity ? Infinity : Math.trunc(length);
}

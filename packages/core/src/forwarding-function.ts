/** What a forwarding function does with the `this` and the arguments it was called with. */
export type Forward = (thisArg: unknown, args: ArrayLike<unknown>) => unknown;

/** A Forward that is also handed the two values its forwarding function was made with: one function for every wrapper. */
export type ForwardWith<A, B> = (thisArg: unknown, args: ArrayLike<unknown>, first: A, second: B) => unknown;

type Forwarding = (this: unknown, ...args: unknown[]) => unknown;

/*
 * One template per arity up to four, each declaring its parameters, so that the function gets its `length` at
 * creation: defining `length` afterwards costs more than the rest of a bind, and every listener on every request
 * is bound. Each is a method, so that it is not a constructor (`new Snapshot.wrap(fn)()` is a TypeError). Four
 * covers express's error middleware, told apart by its four parameters.
 */
/* eslint-disable prefer-rest-params, @typescript-eslint/unbound-method -- `arguments` keeps each declared arity
   without a rest array; each method is taken off its object for its shape alone, and its `this` is the caller's */
const templates: ReadonlyArray<
  (forward: ForwardWith<unknown, unknown>, first: unknown, second: unknown) => Forwarding
> = [
  (forward, first, second) =>
    ({
      wrapped(this: unknown) {
        return forward(this, arguments, first, second);
      },
    }).wrapped,
  (forward, first, second) =>
    ({
      wrapped(this: unknown, _1: unknown) {
        return forward(this, arguments, first, second);
      },
    }).wrapped,
  (forward, first, second) =>
    ({
      wrapped(this: unknown, _1: unknown, _2: unknown) {
        return forward(this, arguments, first, second);
      },
    }).wrapped,
  (forward, first, second) =>
    ({
      wrapped(this: unknown, _1: unknown, _2: unknown, _3: unknown) {
        return forward(this, arguments, first, second);
      },
    }).wrapped,
  (forward, first, second) =>
    ({
      wrapped(this: unknown, _1: unknown, _2: unknown, _3: unknown, _4: unknown) {
        return forward(this, arguments, first, second);
      },
    }).wrapped,
];
/* eslint-enable prefer-rest-params, @typescript-eslint/unbound-method */

/**
 * A function, not a constructor, that hands its `this` and arguments to `forward` (with `first` and `second`),
 * and whose `length` is `length` (a non-negative integer or +Infinity).
 */
export function forwardingFunction(length: number, forward: Forward): Forwarding;
export function forwardingFunction<A, B>(length: number, forward: ForwardWith<A, B>, first: A, second: B): Forwarding;
export function forwardingFunction(
  length: number,
  forward: ForwardWith<unknown, unknown>,
  first?: unknown,
  second?: unknown,
): Forwarding {
  const template = templates[length];
  if (template !== undefined) return template(forward, first, second);
  const forwarding = templates[0]!(forward, first, second);
  Object.defineProperty(forwarding, 'length', {
    value: length,
    writable: false,
    enumerable: false,
    configurable: true,
  });
  return forwarding;
}

/**
 * A forwarding function shaped like `target`. With a `prefix`, the spec's CopyNameAndLength(F, target, prefix)
 * (tc39/proposal-async-context, as Function.prototype.bind does): `length` from an own numeric `length`, then
 * the name `prefix + ' ' + name`, read in that order, an exception from either passing through. Without one,
 * the `length` alone: setting a name costs more than the rest of a wrap, so listeners bound on every request
 * keep the original's name only behind `.listener`.
 */
export function functionShapedLike(target: object, forward: Forward, prefix?: string): Forwarding {
  const length = lengthOf(target);
  if (prefix === undefined) return forwardingFunction(length, forward);
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

/** CopyNameAndLength's length: an own `length` that is a Number, truncated and at least 0 (+Infinity stays), else 0. */
export function lengthOf(target: object): number {
  if (!Object.prototype.hasOwnProperty.call(target, 'length')) return 0;
  const length = (target as { readonly length?: unknown }).length;
  if (typeof length !== 'number' || Number.isNaN(length) || length <= 0) return 0;
  return length === Infinity ? Infinity : Math.trunc(length);
}

/** What a forwarding function does with the `this` and the arguments it was called with. */
export type Forward = (thisArg: unknown, args: ArrayLike<unknown>) => unknown;

/** A Forward that is also handed the two values its forwarding function was made with: one function for every wrapper. */
export type ForwardWith<A, B> = (thisArg: unknown, args: ArrayLike<unknown>, first: A, second: B) => unknown;

type Forwarding = (this: unknown, ...args: unknown[]) => unknown;

/*
 * One template per arity up to four (express's error middleware), each declaring its parameters, so that it gets
 * its `length` at creation: defining `length` later costs more than the rest of a bind, paid by every listener of
 * every request. Methods, so that none is a constructor.
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

/** A non-constructor of that `length` handing its `this` and arguments (and `first`, `second`) to `forward`. */
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
 * A forwarding function shaped like `target`: with a `prefix`, the spec's CopyNameAndLength (length, then the
 * name `prefix + ' ' + name`, an exception from either passing through); without, the `length` alone, since a
 * name is dear to set on what is bound per request.
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

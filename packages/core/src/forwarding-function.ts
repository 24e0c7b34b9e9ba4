/** What a forwarding function does with the `this` and the arguments it was called with. */
export type Forward = (thisArg: unknown, args: ArrayLike<unknown>) => unknown;

/**
 * A Forward that is also handed the two values its forwarding function was made with: a forward that needs no
 * more than two values can be one function for every wrapper, rather than a closure made per wrapper (90 of the
 * 240 bytes of a bound listener on Node 24).
 */
export type ForwardWith<A, B> = (thisArg: unknown, args: ArrayLike<unknown>, first: A, second: B) => unknown;

type Forwarding = (this: unknown, ...args: unknown[]) => unknown;

/*
 * One template per arity up to four, each a method so that the function made from it is not a constructor
 * (the spec's CreateBuiltinFunction makes none: `new Snapshot.wrap(fn)()` is a TypeError), and each declaring
 * its parameters so that it gets its `length` at creation. Setting `length` afterwards with
 * Object.defineProperty costs more than the rest of a bind (figures:
 * benchmarks/README.md#why-the-code-looks-the-way-it-does), and http instrumentation binds every listener
 * added to every request and response. Four covers express's error middleware, which is told apart by its four
 * parameters.
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
 * A function, not a constructor, that hands its `this` and arguments to `forward` (with `first` and `second`,
 * where given), and whose `length` is `length` (any value SetFunctionLength accepts: a non-negative integer or
 * +Infinity), as a bound function's must be.
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

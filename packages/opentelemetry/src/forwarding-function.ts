/** What a forwarding function does with the `this` and the arguments it was called with. */
export type Forward = (thisArg: unknown, args: ArrayLike<unknown>) => unknown;

/**
 * A function that hands its `this` and arguments to `forward`, and whose `length` is `length`, as a bound
 * function's must be: express tells error middleware by four parameters, and OpenTelemetry's own context
 * managers keep it. Declared with that many parameters where it can be, since setting `length` with
 * Object.defineProperty costs more than the rest of bind() (figures:
 * benchmarks/README.md#why-the-code-looks-the-way-it-does), and http instrumentation binds every
 * listener added to every request and response.
 */
/* eslint-disable prefer-rest-params -- `arguments` keeps each declared arity without a rest array */
export function forwardingFunction(length: number, forward: Forward): (...args: unknown[]) => unknown {
  switch (length) {
    case 0:
      return function (this: unknown) {
        return forward(this, arguments);
      };
    case 1:
      return function (this: unknown, _1: unknown) {
        return forward(this, arguments);
      };
    case 2:
      return function (this: unknown, _1: unknown, _2: unknown) {
        return forward(this, arguments);
      };
    case 3:
      return function (this: unknown, _1: unknown, _2: unknown, _3: unknown) {
        return forward(this, arguments);
      };
    case 4:
      return function (this: unknown, _1: unknown, _2: unknown, _3: unknown, _4: unknown) {
        return forward(this, arguments);
      };
    default: {
      const forwarding = function (this: unknown) {
        return forward(this, arguments);
      };
      Object.defineProperty(forwarding, 'length', {
        value: length,
        enumerable: false,
        configurable: true,
        writable: false,
      });
      return forwarding;
    }
  }
}
/* eslint-enable prefer-rest-params */

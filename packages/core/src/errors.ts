/**
 * Every error @ambient/core throws, in one table. Codes are stable API: match on `error.code`, never on
 * the message. Messages say what to do next.
 */

const kAmbientError = Symbol.for('@ambient/core.error');

export type AmbientErrorCode =
  'ERR_AMBIENT_NO_SCOPE' | 'ERR_AMBIENT_MISSING_VALUE' | 'ERR_AMBIENT_INVALID_ARGUMENT' | 'ERR_AMBIENT_SET_UNSUPPORTED';

/**
 * The one error class of every Ambient package. Each package keeps its own table of codes (this file is
 * core's); `C` is the union of codes a package throws, core's by default.
 */
export class AmbientError<C extends string = AmbientErrorCode> extends Error {
  readonly code: C;

  constructor(code: C, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AmbientError';
    this.code = code;
    Object.defineProperty(this, kAmbientError, { value: true });
  }

  /**
   * `instanceof AmbientError` holds for errors thrown by any copy of @ambient/core (its ESM and CJS
   * builds, a duplicate install) and across jest's module realms, where a plain class check fails.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[kAmbientError] === true;
  }
}

const howToOpenAScope =
  'Open a scope first: mount the framework adapter (expressContext(), koaContext(), fastifyContext(), httpContext()) ' +
  'in front of this code, or wrap the call in run().';

export const errors = {
  noScope(owner: string, operation: string): AmbientError {
    return new AmbientError(
      'ERR_AMBIENT_NO_SCOPE',
      `${owner}.${operation}() was called outside any ${owner} scope. ${howToOpenAScope}`,
    );
  },

  missingValue(owner: string, key: string): AmbientError {
    return new AmbientError(
      'ERR_AMBIENT_MISSING_VALUE',
      `${owner}.require(${JSON.stringify(key)}) found no value in the current scope. ` +
        `Set it with ${owner}.set(${JSON.stringify(key)}, value) or pass it to ${owner}.run() before reading it, ` +
        `or use ${owner}.get() where its absence is expected.`,
    );
  },

  invalidArgument(where: string, expected: string, received: unknown): AmbientError {
    return new AmbientError(
      'ERR_AMBIENT_INVALID_ARGUMENT',
      `${where}: expected ${expected}, received ${describeValue(received)}.`,
    );
  },

  setUnsupported(owner: string): AmbientError {
    return new AmbientError(
      'ERR_AMBIENT_SET_UNSUPPORTED',
      `${owner}.set() needs Node's AsyncLocalStorage, but this process runs on globalThis.AsyncContext, ` +
        'which has no way to change a value in place. Use run(value, fn) instead, or a Context (createContext) ' +
        'for values that change during a scope.',
    );
  },
};

/**
 * How every Ambient error message names a value it received: its kind, and strings quoted and cut at 40
 * characters. Exported for packages that throw AmbientError with their own codes.
 */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string')
    return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- objects and functions returned above
  return `${typeof value} ${String(value)}`;
}

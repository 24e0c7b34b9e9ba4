/**
 * Every code an Ambient package throws, as keys. Each package adds its own by module augmentation, beside its
 * error table:
 *
 *     declare module '@ambient/core' { interface AmbientErrorCodes { ERR_AMBIENT_HTTP_INVALID_OPTION: true } }
 *
 * so that after `error instanceof AmbientError`, `error.code` is the union of every installed package's codes.
 */
export interface AmbientErrorCodes {
  ERR_AMBIENT_NO_SCOPE: true;
  ERR_AMBIENT_MISSING_VALUE: true;
  ERR_AMBIENT_INVALID_ARGUMENT: true;
  ERR_AMBIENT_INVALID_OPTION: true;
  ERR_AMBIENT_SET_UNSUPPORTED: true;
  ERR_AMBIENT_INVALID_RECEIVER: true;
}

/** The union of every registered code: `switch (error.code)` on it autocompletes. */
export type AmbientErrorCode = keyof AmbientErrorCodes;

const kAmbientError = Symbol.for('@ambient/core.error');

/**
 * The one error class of every Ambient package. `C` is the union of codes a package throws; match on
 * `error.code`, never on the message.
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
  static override [Symbol.hasInstance](value: unknown): value is AmbientError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[kAmbientError] === true;
  }
}

/**
 * An AmbientError that is also a TypeError, for the mistakes the TC39 AsyncContext specification and Node's own
 * APIs report as TypeError (a callback that is not callable, a method called on a foreign receiver): like
 * Node's ERR_INVALID_ARG_TYPE, an instance of TypeError with a stable `code`. `instanceof AmbientError` holds.
 */
export class AmbientTypeError<C extends string = AmbientErrorCode> extends TypeError {
  readonly code: C;

  constructor(code: C, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    Object.defineProperty(this, kAmbientError, { value: true });
  }
}

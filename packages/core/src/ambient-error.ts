import { errorBrand } from './registry.js';

/** Every code an Ambient package throws, as keys: each package adds its own beside its table, by augmentation. */
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

/** The one error class of every Ambient package, across copies; match on `error.code`, never on the message. */
export class AmbientError<C extends string = AmbientErrorCode> extends Error {
  readonly code: C;

  constructor(code: C, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AmbientError';
    this.code = code;
    Object.defineProperty(this, errorBrand, { value: true });
  }

  static override [Symbol.hasInstance](value: unknown): value is AmbientError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[errorBrand] === true;
  }
}

/** A real TypeError (test262 checks its constructor) with a stable `code`, and `instanceof AmbientError`. */
export function codedTypeError<C extends string>(
  code: C,
  message: string,
  options?: { cause?: unknown },
): AmbientError<C> {
  const error = new TypeError(message, options) as TypeError & { code: C };
  error.code = code;
  Object.defineProperty(error, errorBrand, { value: true });
  return error;
}

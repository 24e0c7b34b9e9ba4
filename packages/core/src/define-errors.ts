import { AmbientError, AmbientTypeError, type AmbientErrorCode } from './ambient-error.js';

/**
 * The one toolkit every Ambient package makes its errors and warnings with: a package writes one table of
 * templates (fastify's lib/errors.js, Node's lib/internal/errors.js), and gets one factory per row, each
 * typed with its own stable code. Codes must be registered in AmbientErrorCodes (by module augmentation), so
 * `switch (error.code)` autocompletes every package's codes and a misspelled code fails to compile.
 */

/** A row of a table: a stable code and the message for the arguments its factory takes. */
export interface MessageTemplate<C extends string = string> {
  readonly code: C;
  readonly message: (...args: never[]) => string;
  /** `'TypeError'`: the error is also a TypeError (AmbientTypeError), as Node's ERR_INVALID_ARG_TYPE is. */
  readonly type?: 'TypeError';
}

/** A row of an error table; its code must be registered in AmbientErrorCodes. */
export type ErrorTemplate = MessageTemplate<AmbientErrorCode>;

/**
 * A row of a warning table: emitted with `process.emitWarning` (type `AmbientWarning`), so it shows on stderr
 * and reaches `process.on('warning')`. `once`: only the first emission per process is shown.
 */
export interface WarningTemplate extends MessageTemplate {
  readonly once?: boolean;
}

/** The last argument of an error factory may carry the error's `cause`, as with `@fastify/error`. */
export interface CauseOption {
  readonly cause: unknown;
}

type ArgumentsOf<T extends MessageTemplate> = Parameters<T['message']>;

export type ErrorFactories<T extends Readonly<Record<string, ErrorTemplate>>> = {
  readonly [K in keyof T]: (
    ...args: ArgumentsOf<T[K]> | [...ArgumentsOf<T[K]>, CauseOption]
  ) => AmbientError<T[K]['code']>;
};

export type WarningEmitters<T extends Readonly<Record<string, WarningTemplate>>> = {
  readonly [K in keyof T]: (...args: ArgumentsOf<T[K]>) => void;
};

/** The union of codes a table of errors (or warnings) uses: `type MyCode = CodesOf<typeof errors>`. */
export type CodesOf<T> = {
  [K in keyof T]: T[K] extends (...args: never) => AmbientError<infer C> ? C : never;
}[keyof T];

/** The union of codes a warning table uses: `type MyWarningCode = WarningCodesOf<typeof warnings>`. */
export type WarningCodesOf<W extends { readonly codes: Readonly<Record<string, string>> }> =
  W['codes'][keyof W['codes']];

/** One factory per row: `errors.noScope(owner, operation)` returns an AmbientError with the row's code. */
export function defineErrors<const T extends Readonly<Record<string, ErrorTemplate>>>(table: T): ErrorFactories<T> {
  const factories: Record<string, (...args: unknown[]) => AmbientError> = {};
  for (const [name, { code, message, type }] of Object.entries(table)) {
    const format = message as (...args: unknown[]) => string;
    const ErrorClass = type === 'TypeError' ? AmbientTypeError : AmbientError;
    factories[name] = (...args) => {
      const last = args.at(-1);
      if (args.length > format.length && isCauseOption(last)) {
        return new ErrorClass(code, format(...args.slice(0, -1)), { cause: last.cause });
      }
      return new ErrorClass(code, format(...args));
    };
  }
  return factories as ErrorFactories<T>;
}

/** Warnings, in a table of their own beside the package's errors, named the same way (`WARN_AMBIENT_…`). */
export function defineWarnings<const T extends Readonly<Record<string, WarningTemplate>>>(
  table: T,
): WarningEmitters<T> & { readonly codes: { readonly [K in keyof T]: T[K]['code'] } } {
  const emitters: Record<string, unknown> = {};
  const codes: Record<string, string> = {};
  for (const [name, { code, message, once = false }] of Object.entries(table)) {
    const format = message as (...args: unknown[]) => string;
    let emitted = false;
    codes[name] = code;
    emitters[name] = (...args: unknown[]) => {
      if (once && emitted) return;
      emitted = true;
      process.emitWarning(format(...args), { type: 'AmbientWarning', code });
    };
  }
  emitters['codes'] = Object.freeze(codes);
  return emitters as WarningEmitters<T> & { readonly codes: { readonly [K in keyof T]: T[K]['code'] } };
}

function isCauseOption(value: unknown): value is CauseOption {
  return typeof value === 'object' && value !== null && Object.keys(value).length === 1 && 'cause' in value;
}

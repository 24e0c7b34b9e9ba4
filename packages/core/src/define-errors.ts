import { AmbientError, codedTypeError, type AmbientErrorCode } from './ambient-error.js';

// One table of templates per package (fastify's lib/errors.js), one factory per row, each with its stable code.

/** A row of a table: a stable code and the message for the arguments its factory takes. */
export interface MessageTemplate<C extends string = string> {
  readonly code: C;
  readonly message: (...args: never[]) => string;
  /** `'TypeError'`: the error is a real TypeError with the code, as Node's ERR_INVALID_ARG_TYPE is. */
  readonly type?: 'TypeError';
}

/** A row of an error table; its code must be registered in AmbientErrorCodes. */
export type ErrorTemplate = MessageTemplate<AmbientErrorCode>;

/** A row of a warning table (`process.emitWarning`, type `AmbientWarning`); `once`: the first emission only. */
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

/** The union of codes a table of errors uses: `type MyCode = CodesOf<typeof errors>`. */
export type CodesOf<T> = {
  [K in keyof T]: T[K] extends (...args: never) => AmbientError<infer C> ? C : never;
}[keyof T];

/** The union of codes a warning table uses: `type MyWarningCode = WarningCodesOf<typeof warnings>`. */
export type WarningCodesOf<W extends { readonly codes: Readonly<Record<string, string>> }> =
  W['codes'][keyof W['codes']];

/** One factory per row: `errors.noScope(owner, operation)` returns an AmbientError with the row's code. */
export function defineErrors<const T extends Readonly<Record<string, ErrorTemplate>>>(table: T): ErrorFactories<T> {
  const factories: Record<string, (...args: unknown[]) => AmbientError<string>> = {};
  for (const [name, { code, message, type }] of Object.entries(table)) {
    const format = message as (...args: unknown[]) => string;
    const create = type === 'TypeError' ? codedTypeError : newAmbientError;
    factories[name] = (...args) => {
      const last = args.at(-1);
      if (args.length > format.length && isCauseOption(last)) {
        return create(code, format(...args.slice(0, -1)), { cause: last.cause });
      }
      return create(code, format(...args));
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

function newAmbientError<C extends string>(code: C, message: string, options?: { cause?: unknown }): AmbientError<C> {
  return new AmbientError(code, message, options);
}

function isCauseOption(value: unknown): value is CauseOption {
  return typeof value === 'object' && value !== null && Object.keys(value).length === 1 && 'cause' in value;
}

/**
 * The rows every package's table shares, under its own codes: an argument of the wrong kind (a TypeError; the
 * option code where a package has no other), and readOptions' two errors.
 */
export function usageErrorTemplates<O extends string, A extends string = O>(codes: { option: O; argument?: A }) {
  return {
    invalidArgument: {
      code: codes.argument ?? codes.option,
      type: 'TypeError',
      message: (where: string, expected: string, received: unknown) =>
        `${where}: expected ${expected}, received ${describeValue(received)}.`,
    },
    invalidOption: {
      code: codes.option,
      message: (where: string, option: string, expected: string, received: unknown) =>
        `${where}: option "${option}" must be ${expected}, received ${describeValue(received)}.`,
    },
    unknownOption: {
      code: codes.option,
      message: (where: string, option: string, known: readonly string[]) => {
        const suggestion = nearest(option, known);
        return (
          `${where}: unknown option "${option}".` +
          (suggestion === undefined ? '' : ` Did you mean "${suggestion}"?`) +
          ` Known options: ${known.join(', ')}.`
        );
      },
    },
  } as const;
}

/** How a message names a value it received: its kind, strings quoted and cut at 40 characters. */
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

/** The known name closest to a typo, if one is close enough to be what was meant. */
function nearest(typo: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const distance = editDistance(typo.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(best.length / 3)) ? best : undefined;
}

/** Levenshtein distance, with a swap of two neighbours counted as one edit (Damerau's restricted form). */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let distance = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        distance = Math.min(distance, rows[i - 2]![j - 2]! + 1);
      }
      rows[i]![j] = distance;
    }
  }
  return rows[a.length]![b.length]!;
}

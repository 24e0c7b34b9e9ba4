import { errors } from './errors.js';
import type { AmbientError } from './ambient-error.js';

/** What one option must be: a predicate, and how the error message names what it expected. */
export interface OptionRule<T> {
  /** Completes "must be …", e.g. `a function (requestId: string) => boolean`. */
  readonly expected: string;
  readonly accepts: (value: unknown) => value is T;
}

/** A rule for every key of an options interface `O`; a key missing here is a compile error. */
export type OptionShape<O extends object> = { readonly [K in keyof O]-?: OptionRule<Exclude<O[K], undefined>> };

/** The errors a package's option reader throws, from that package's own table (see usageErrorTemplates). */
export interface OptionErrors {
  invalidOption(where: string, option: string, expected: string, received: unknown): AmbientError;
  unknownOption(where: string, option: string, known: readonly string[]): AmbientError;
}

/** A rule from a predicate, e.g. `rule('a header name', (v): v is string => …)`. */
export function rule<T>(expected: string, accepts: (value: unknown) => value is T): OptionRule<T> {
  return { expected, accepts };
}

/** The rules most options need; build others with rule(). */
export const rules = {
  string: rule('a string', (value): value is string => typeof value === 'string'),
  nonEmptyString: rule('a non-empty string', (value): value is string => typeof value === 'string' && value !== ''),
  boolean: rule('a boolean', (value): value is boolean => typeof value === 'boolean'),
  object: rule('an object', (value): value is object => typeof value === 'object' && value !== null),
  function<F extends (...args: never[]) => unknown>(signature: string): OptionRule<F> {
    return rule(`a function ${signature}`, (value): value is F => typeof value === 'function');
  },
  /** Any value: for options whose type is the user's own (a default value). */
  any<T>(): OptionRule<T> {
    return rule('any value', (_value): _value is T => true);
  },
} as const;

export interface ReadOptionsContext {
  /** Where the options were given, as the user wrote it: `createContext(options)`. */
  readonly where: string;
  /** The package's errors; core's by default. */
  readonly errors?: OptionErrors;
  /** For nested options: the path of the object being read (`propagation`), prefixed to each option's name. */
  readonly path?: string;
}

/** Reads options eagerly, so that a typo (an unknown key, a value failing its rule) fails where it was made. */
export function readOptions<O extends object>(options: unknown, shape: OptionShape<O>, context: ReadOptionsContext): O {
  if (options === undefined) return {} as O;
  const { where, errors: optionErrors = errors, path } = context;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw optionErrors.invalidOption(where, path ?? 'options', 'an object or undefined', options);
  }
  const given = options as Record<string, unknown>;
  for (const key of Object.keys(given)) {
    if (!Object.prototype.hasOwnProperty.call(shape, key)) {
      throw optionErrors.unknownOption(
        where,
        pathOf(path, key),
        Object.keys(shape).map((known) => pathOf(path, known)),
      );
    }
  }
  for (const key in shape) {
    const value = given[key];
    const check = shape[key];
    if (value !== undefined && !check.accepts(value)) {
      throw optionErrors.invalidOption(where, pathOf(path, key), check.expected, value);
    }
  }
  return options as O;
}

function pathOf(path: string | undefined, key: string): string {
  return path === undefined ? key : `${path}.${key}`;
}

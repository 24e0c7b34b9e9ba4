import { requestContext, type CorrelationFieldNames } from '@ambient/core';
import {
  correlationFields,
  readOptions,
  resolveFieldNames,
  rules,
  scopeObject,
  type OptionShape,
  type ResolvedFieldNames,
} from '@ambient/core/internal';
import { isCorrelationMixin } from './correlation-mixin.js';
import { errors } from './errors.js';

/** Any logger with pino's `child(bindings)`: pino itself, and bunyan- or winston-style loggers. */
export interface ChildLogger {
  child(bindings: Record<string, unknown>): unknown;
}

export interface RequestLoggerOptions {
  /** Field names of the bindings, as in correlationMixin(). */
  fields?: CorrelationFieldNames;
}

interface CachedChild {
  readonly fields: Record<string, unknown>;
  readonly logger: unknown;
}

// The children made for each request, by its scope object: they go away with the request and never reach another.
const childrenOfScope = new WeakMap<object, Map<object, CachedChild>>();
// Whether each base logger already writes the fields through correlationMixin() (a logger's mixin is fixed).
const basesWithMixin = new WeakMap<object, boolean>();
const defaultNames = resolveFieldNames(undefined, 'requestLogger', errors);

/**
 * The current request's logger: a child of `base` bound to the request's correlation fields, made once per
 * request (and again if the request's values change), reachable from any function without passing `req`.
 * Outside a request it returns `base`. When `base` already logs through correlationMixin() it returns `base`
 * too, since the mixin writes the fields on every line and a child would write them twice.
 */
export function requestLogger<L extends ChildLogger>(base: L, options?: RequestLoggerOptions): L {
  if (typeof base !== 'object' || base === null || typeof base.child !== 'function') {
    throw errors.invalidArgument('requestLogger(base)', 'a logger with a child() method, such as pino()', base);
  }
  const names = options === undefined ? defaultNames : resolveOptions(options);
  let writesFields = basesWithMixin.get(base);
  if (writesFields === undefined) basesWithMixin.set(base, (writesFields = isCorrelationMixin(pinoMixinOf(base))));
  if (writesFields) return base;
  const fields = correlationFields(names);
  if (fields === undefined) return base;

  const scope = scopeObject(requestContext)!;
  let children = childrenOfScope.get(scope);
  if (children === undefined) {
    children = new Map();
    childrenOfScope.set(scope, children);
  }
  const cached = children.get(base);
  if (cached !== undefined && sameFields(cached.fields, fields)) return cached.logger as L;
  const logger = base.child(fields);
  children.set(base, { fields, logger });
  return logger as L;
}

/**
 * The mixin a pino logger was created with. pino keeps it under its own `Symbol('pino.mixin')`, which it does
 * not register globally, so the symbol is found by its description: this works with whichever copy of pino
 * made the logger, and without importing pino here.
 */
function pinoMixinOf(logger: object): unknown {
  for (let target: object | null = logger; target !== null; target = Object.getPrototypeOf(target) as object | null) {
    for (const symbol of Object.getOwnPropertySymbols(target)) {
      if (symbol.description === 'pino.mixin') return (target as Record<symbol, unknown>)[symbol];
    }
  }
  return undefined;
}

const loggerOptions: OptionShape<RequestLoggerOptions> = { fields: rules.object };

function resolveOptions(options: RequestLoggerOptions): ResolvedFieldNames {
  const where = 'requestLogger(base, options)';
  return resolveFieldNames(readOptions(options, loggerOptions, { where, errors }).fields, where, errors);
}

function sameFields(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) if (a[key] !== b[key]) return false;
  return true;
}

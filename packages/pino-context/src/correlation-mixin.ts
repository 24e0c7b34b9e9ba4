import type { CorrelationFieldNames } from '@ambient/core';
import { correlationFields, readOptions, resolveFieldNames, rules, type OptionShape } from '@ambient/core/internal';
import { errors } from './errors.js';

/** pino's `mixin` signature; `L` is the logger type pino passes (left open so pino 8, 9 and 10 all fit). */
export type MixinFunction<L = unknown> = (mergeObject: object, level: number, logger: L) => object;

export interface CorrelationMixinOptions<L = unknown> {
  /** Field names in the log line; `false` leaves a field out. */
  fields?: CorrelationFieldNames;
  /** Your own mixin: called on every line, its fields win over the correlation fields. */
  mixin?: MixinFunction<L>;
}

const mixinOptions: OptionShape<CorrelationMixinOptions> = {
  fields: rules.object,
  mixin: rules.function('(mergeObject, level, logger) => object'),
};
const correlationMixins = new WeakSet<object>();

/**
 * A pino `mixin`: every line logged inside a request gets `requestId`, and `traceId`/`spanId` when the
 * request has a trace. It patches nothing (no require hook, no pino internals), so it behaves the same
 * under ESM, CJS and bundlers, and on loggers created before or after it.
 *
 *     const logger = pino({ mixin: correlationMixin() });
 */
export function correlationMixin<L = unknown>(options: CorrelationMixinOptions<L> = {}): MixinFunction {
  const where = 'correlationMixin(options)';
  readOptions<CorrelationMixinOptions<L>>(options, mixinOptions, {
    where,
    errors,
  });
  const names = resolveFieldNames(options.fields, where, errors);
  const own = options.mixin;

  // pino merges the log call's own object into the returned one (Object.assign), so every call returns a
  // fresh object: a shared one would collect the fields of earlier lines.
  // The returned mixin accepts any logger (`unknown`), so it fits pino 8, 9 and 10's MixinFn and any custom levels.
  const mixin: MixinFunction =
    own === undefined
      ? () => correlationFields(names) ?? {}
      : (mergeObject, level, logger) => {
          const ownFields = own(mergeObject, level, logger as L);
          const fields = correlationFields(names);
          return fields === undefined ? ownFields : Object.assign(fields, ownFields);
        };
  correlationMixins.add(mixin);
  return mixin;
}

/** Was this function made by correlationMixin()? (requestLogger uses it to avoid writing fields twice.) */
export function isCorrelationMixin(value: unknown): boolean {
  return typeof value === 'function' && correlationMixins.has(value);
}

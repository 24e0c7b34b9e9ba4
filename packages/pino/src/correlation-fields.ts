import { requestContext } from '@ambient/core';
import { readOptions, rule, type OptionShape } from '@ambient/core/adapter';
import { errors } from './errors.js';

/** Where each correlation value goes in a log line; `false` leaves it out. */
export interface CorrelationFieldNames {
  /** Default `requestId`. */
  requestId?: string | false;
  /** Default `traceId`. */
  traceId?: string | false;
  /** Default `spanId`. */
  spanId?: string | false;
}

export interface ResolvedFieldNames {
  readonly requestId: string | false;
  readonly traceId: string | false;
  readonly spanId: string | false;
}

const defaults: ResolvedFieldNames = { requestId: 'requestId', traceId: 'traceId', spanId: 'spanId' };

const fieldName = rule(
  'a non-empty string or false',
  (value): value is string | false => value === false || (typeof value === 'string' && value.length > 0),
);
const fieldNames: OptionShape<CorrelationFieldNames> = { requestId: fieldName, traceId: fieldName, spanId: fieldName };

/** The `fields` option of correlationMixin() and requestLogger(), checked, with the defaults filled in. */
export function resolveFieldNames(fields: CorrelationFieldNames | undefined, where: string): ResolvedFieldNames {
  if (fields === undefined) return defaults;
  const given = readOptions(fields, fieldNames, { where, errors, path: 'fields' });
  return {
    requestId: given.requestId ?? defaults.requestId,
    traceId: given.traceId ?? defaults.traceId,
    spanId: given.spanId ?? defaults.spanId,
  };
}

/**
 * The current request's correlation values under their configured names, or `undefined` outside a request.
 * Reads three slots of the one storage cell; allocates only the returned object.
 */
export function correlationFields(names: ResolvedFieldNames): Record<string, string> | undefined {
  const requestId = requestContext.get('requestId');
  const traceId = requestContext.get('traceId');
  if (requestId === undefined && traceId === undefined) return undefined;
  const fields: Record<string, string> = {};
  if (names.requestId !== false && requestId !== undefined) fields[names.requestId] = requestId;
  if (names.traceId !== false && traceId !== undefined) fields[names.traceId] = traceId;
  if (names.spanId !== false) {
    const spanId = requestContext.get('spanId');
    if (spanId !== undefined) fields[names.spanId] = spanId;
  }
  return fields;
}

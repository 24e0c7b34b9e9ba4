import { requestContext } from '@ambient/core';
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
const knownFields = Object.keys(defaults) as (keyof ResolvedFieldNames)[];

export function resolveFieldNames(fields: unknown, where: string): ResolvedFieldNames {
  if (fields === undefined) return defaults;
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) {
    throw errors.invalidOption(where, 'fields', 'an object such as { requestId: "reqId" }', fields);
  }
  const given = fields as Record<string, unknown>;
  for (const name of Object.keys(given)) {
    if (!knownFields.includes(name as keyof ResolvedFieldNames))
      throw errors.unknownOption(where, `fields.${name}`, knownFields);
  }
  const resolved = { ...defaults };
  for (const name of knownFields) {
    const value = given[name];
    if (value === undefined) continue;
    if (value !== false && (typeof value !== 'string' || value.length === 0)) {
      throw errors.invalidOption(where, `fields.${name}`, 'a non-empty string or false', value);
    }
    resolved[name] = value;
  }
  return resolved;
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

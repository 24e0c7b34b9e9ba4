// The correlation values of a log line, shared by every logger binding (pino's mixin, Nest's ConsoleLogger, …),
// so that each writes the same fields under the same names.
import { scopeObject } from './context.js';
import { readOptions, rule, type OptionErrors, type OptionShape } from './read-options.js';
import { activeTrace, requestContext, type ActiveTrace, type RequestStore } from './request-context.js';

/** Where each correlation value goes in a log line; `false` leaves it out. */
export interface CorrelationFieldNames {
  /** Default `requestId`. */
  requestId?: string | false;
  /** Default `traceId`. */
  traceId?: string | false;
  /** Default `spanId`. */
  spanId?: string | false;
  /** The request id of the request or job that caused this one; default `causationId`. */
  causationId?: string | false;
  /** The id of the whole chain of requests and jobs; default `correlationId`. */
  correlationId?: string | false;
  /** Inside a job run: `{ name, id, system, queue, attempt }`; default `job`. */
  job?: string | false;
  /** Inside a GraphQL operation: `{ name, type }`; default `operation`. */
  operation?: string | false;
}

export type ResolvedFieldNames = { readonly [K in keyof CorrelationFieldNames]-?: string | false };

const defaults: ResolvedFieldNames = {
  requestId: 'requestId',
  traceId: 'traceId',
  spanId: 'spanId',
  causationId: 'causationId',
  correlationId: 'correlationId',
  job: 'job',
  operation: 'operation',
};

const fieldName = rule(
  'a non-empty string or false',
  (value): value is string | false => value === false || (typeof value === 'string' && value.length > 0),
);
const fieldNames: OptionShape<CorrelationFieldNames> = {
  requestId: fieldName,
  traceId: fieldName,
  spanId: fieldName,
  causationId: fieldName,
  correlationId: fieldName,
  job: fieldName,
  operation: fieldName,
};

/**
 * A logger binding's `fields` option, checked (errors from the binding's own table), with the defaults filled in.
 */
export function resolveFieldNames(
  fields: CorrelationFieldNames | undefined,
  where: string,
  errors: OptionErrors,
): ResolvedFieldNames {
  if (fields === undefined) return defaults;
  const given = readOptions(fields, fieldNames, { where, errors, path: 'fields' });
  return {
    requestId: given.requestId ?? defaults.requestId,
    traceId: given.traceId ?? defaults.traceId,
    spanId: given.spanId ?? defaults.spanId,
    causationId: given.causationId ?? defaults.causationId,
    correlationId: given.correlationId ?? defaults.correlationId,
    job: given.job ?? defaults.job,
    operation: given.operation ?? defaults.operation,
  };
}

/**
 * What a log line's correlation values are read from: the scope it was logged in and the span active there. A
 * logger that writes a line after the call returned (winston, when a transport falls behind) takes it at the
 * call and reads the fields from it later.
 */
export interface LineContext {
  readonly scope: Partial<RequestStore>;
  readonly trace: ActiveTrace | undefined;
}

/**
 * The line context here, or `undefined` outside any scope. Outside it reads through requestContext, so that
 * @ambient/diagnostics, when on, reports the lost context at the log call.
 */
export function lineContext(): LineContext | undefined {
  const scope: Partial<RequestStore> | undefined = scopeObject(requestContext);
  if (scope === undefined) {
    requestContext.get('requestId');
    return undefined;
  }
  return { scope, trace: activeTrace() };
}

/**
 * The current request's (or job run's) correlation values under their configured names, or `undefined` outside
 * any scope: the values requestContext.get reports (the active span's trace where a tracer reports one), read
 * with one lookup of the scope and one of the span for the whole line.
 */
export function correlationFields(names: ResolvedFieldNames): Record<string, unknown> | undefined {
  const scope: Partial<RequestStore> | undefined = scopeObject(requestContext);
  if (scope === undefined) {
    requestContext.get('requestId');
    return undefined;
  }
  return fieldsOf(names, scope, activeTrace());
}

/**
 * Writes a line context's correlation values into `target` (a log line being formatted), each under its name
 * where `target` has no value of its own: the fields correlationFields gives, without the object in between.
 */
export function addLineFields(target: Record<string, unknown>, names: ResolvedFieldNames, line: LineContext): void {
  const { scope, trace } = line;
  const requestId = scope.requestId;
  const traceId = trace === undefined ? scope.traceId : trace.traceId;
  if (requestId === undefined && traceId === undefined) return;
  const spanId = trace === undefined ? scope.spanId : trace.spanId;
  if (names === defaults) {
    // The default names, written as names: a name that varies makes each access go through V8's slowest
    // property path, which showed in a winston line's count (benchmarks/README.md).
    const line: Partial<Record<keyof CorrelationFieldNames, unknown>> = target;
    if (requestId !== undefined && line.requestId === undefined) line.requestId = requestId;
    if (traceId !== undefined && line.traceId === undefined) line.traceId = traceId;
    if (spanId !== undefined && line.spanId === undefined) line.spanId = spanId;
    if (scope.causationId !== undefined && line.causationId === undefined) line.causationId = scope.causationId;
    if (scope.correlationId !== undefined && line.correlationId === undefined) line.correlationId = scope.correlationId;
    if (scope.job !== undefined && line.job === undefined) line.job = scope.job;
    if (scope.operation !== undefined && line.operation === undefined) line.operation = scope.operation;
    return;
  }
  addField(target, names.requestId, requestId);
  addField(target, names.traceId, traceId);
  addField(target, names.spanId, spanId);
  addField(target, names.causationId, scope.causationId);
  addField(target, names.correlationId, scope.correlationId);
  addField(target, names.job, scope.job);
  addField(target, names.operation, scope.operation);
}

function addField(target: Record<string, unknown>, name: string | false, value: unknown): void {
  if (name !== false && value !== undefined && target[name] === undefined) target[name] = value;
}

function fieldsOf(
  names: ResolvedFieldNames,
  scope: Partial<RequestStore>,
  trace: ActiveTrace | undefined,
): Record<string, unknown> | undefined {
  const requestId = scope.requestId;
  const traceId = trace === undefined ? scope.traceId : trace.traceId;
  if (requestId === undefined && traceId === undefined) return undefined;
  const fields: Record<string, unknown> = {};
  if (names.requestId !== false && requestId !== undefined) fields[names.requestId] = requestId;
  if (names.traceId !== false && traceId !== undefined) fields[names.traceId] = traceId;
  if (names.spanId !== false) {
    const spanId = trace === undefined ? scope.spanId : trace.spanId;
    if (spanId !== undefined) fields[names.spanId] = spanId;
  }
  if (names.causationId !== false && scope.causationId !== undefined) fields[names.causationId] = scope.causationId;
  if (names.correlationId !== false && scope.correlationId !== undefined) {
    fields[names.correlationId] = scope.correlationId;
  }
  if (names.job !== false && scope.job !== undefined) fields[names.job] = scope.job;
  if (names.operation !== false && scope.operation !== undefined) fields[names.operation] = scope.operation;
  return fields;
}

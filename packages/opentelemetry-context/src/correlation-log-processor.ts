import type { CorrelationFieldNames } from '@ambient/core';
import { requestContext, type RequestStore } from '@ambient/core';
import {
  activeTrace,
  readOptions,
  resolveFieldNames,
  rules,
  scopeObject,
  type OptionShape,
} from '@ambient/core/internal';
import { errors } from './errors.js';

/** The part of an OpenTelemetry SDK log record (`@opentelemetry/sdk-logs` 0.2x and 3.x) the processor writes. */
export interface WritableLogRecord {
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly instrumentationScope?: { readonly name: string };
  setAttribute(key: string, value?: never): unknown;
}

/** An OpenTelemetry `LogRecordProcessor`, for `new LoggerProvider({ processors: [...] })`. */
export interface CorrelationLogProcessor {
  onEmit(logRecord: WritableLogRecord): void;
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

export interface CorrelationLogProcessorOptions {
  /**
   * Attribute names; `false` leaves one out. Default: `requestId`, `correlationId`, `causationId` and `job`, as
   * in the log lines; `traceId` and `spanId` are off, since a log record carries its trace in its own fields.
   */
  fields?: CorrelationFieldNames;
}

const processorOptions: OptionShape<CorrelationLogProcessorOptions> = { fields: rules.object };

/**
 * winston's bridge: it sends a line when winston gets to it, which is after the log call whenever a transport
 * falls behind, in whatever context that is (open-telemetry/opentelemetry-js-contrib#2010). Its records carry the
 * ids of the log call as attributes where the logger's format has correlationFormat(); the emit context's ids
 * could belong to another request.
 */
const winstonBridge = '@opentelemetry/winston-transport';

/**
 * A log record processor that stamps the request's or job's ids on every record as attributes, whichever bridge
 * emitted it during the log call (the pino and bunyan instrumentations, `api-logs` itself): logs that reach a
 * Collector join by request and by correlation chain, not only by trace. An attribute the record already has is
 * kept. winston's records are left to correlationFormat(), which takes the ids at the log call. List it before
 * the processors that export, which see the record after it.
 *
 *     new LoggerProvider({ processors: [correlationLogProcessor(), new BatchLogRecordProcessor({ exporter })] });
 */
export function correlationLogProcessor(options: CorrelationLogProcessorOptions = {}): CorrelationLogProcessor {
  const where = 'correlationLogProcessor(options)';
  const given = readOptions(options, processorOptions, { where, errors }).fields;
  const names = resolveFieldNames({ traceId: false, spanId: false, ...given }, where, errors);
  return {
    onEmit(logRecord) {
      // The SDK calls onEmit during Logger#emit, on the emitting caller's stack.
      const scope = logRecord.instrumentationScope;
      if (scope?.name === winstonBridge) return;
      const store: Partial<RequestStore> | undefined = scopeObject(requestContext);
      if (store === undefined) return;
      const trace = names.traceId === false && names.spanId === false ? undefined : activeTrace();
      const stamp = (name: string | false, value: unknown) => {
        if (name !== false && value !== undefined && logRecord.attributes[name] === undefined) {
          logRecord.setAttribute(name, value as never);
        }
      };
      stamp(names.requestId, store.requestId);
      stamp(names.correlationId, store.correlationId);
      stamp(names.causationId, store.causationId);
      stamp(names.job, store.job);
      stamp(names.operation, store.operation);
      stamp(names.traceId, trace === undefined ? store.traceId : trace.traceId);
      stamp(names.spanId, trace === undefined ? store.spanId : trace.spanId);
    },
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
}

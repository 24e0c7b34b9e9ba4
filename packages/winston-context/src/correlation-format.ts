import type { CorrelationFieldNames } from '@ambient/core';
import {
  addLineFields,
  lineContext,
  readOptions,
  resolveFieldNames,
  rules,
  type OptionShape,
} from '@ambient/core/internal';
import type { Logform } from 'winston';
import { errors, warnings } from './errors.js';
import { lineContextOf, lineContexts } from './line-contexts.js';

export interface CorrelationFormatOptions {
  /** Field names in the log line; `false` leaves a field out. */
  fields?: CorrelationFieldNames;
}

const formatOptions: OptionShape<CorrelationFormatOptions> = { fields: rules.object };

/**
 * A winston format: every line logged inside a request or job gets `requestId`, `correlationId`, `causationId`,
 * `traceId`, `spanId` and `job` (those the scope has), the same fields correlationMixin() writes for pino; a line
 * logged outside any scope gets none. A field the line already has (its own meta, a child's metadata) is kept.
 * The ids are those of the log call, which guardWinston() takes: put the format in the logger's format.
 *
 *     guardWinston({ winston });
 *     const logger = winston.createLogger({ format: format.combine(correlationFormat(), format.json()), ... });
 */
export function correlationFormat(options: CorrelationFormatOptions = {}): Logform.Format {
  const where = 'correlationFormat(options)';
  const names = resolveFieldNames(readOptions(options, formatOptions, { where, errors }).fields, where, errors);
  return {
    transform(info) {
      let line = lineContextOf(info);
      if (line === undefined) {
        // Not taken at the log call: read here, which is the call only while no transport has fallen behind.
        if (lineContexts.guards === 0) warnings.notGuarded();
        else warnings.notLoggerFormat();
        line = lineContext() ?? null;
      }
      if (line !== null) addLineFields(info, names, line);
      return info;
    },
  };
}

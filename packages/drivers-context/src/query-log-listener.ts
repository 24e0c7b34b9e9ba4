import { errors } from './errors.js';
import type { QueryEvent, QueryListener } from './query-log.js';

/** The part of a pino logger (or any logger with its call shape) a query log needs. */
export interface QueryLoggerTarget {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
}

/**
 * A guardDrivers `onQuery` listener that writes one line per query: `{ db: { system, driver, statement,
 * durationMs } }`, at `info`, or `warn` when it failed. It is called in the request's context, so a pino logger
 * made with correlationMixin (@ambient/pino-context) adds the request's ids. No parameter value is ever written.
 *
 *     guardDrivers({ pg, onQuery: queryLogListener(logger) });
 */
export function queryLogListener(logger: QueryLoggerTarget, message = 'query'): QueryListener {
  if (typeof logger !== 'object' || logger === null || typeof logger.info !== 'function') {
    throw errors.invalidArgument('queryLogListener(logger)', 'a logger with info() and warn() (pino)', logger);
  }
  return (event: QueryEvent) => {
    const line = {
      db: {
        system: event.system,
        driver: event.driver,
        statement: event.statement,
        durationMs: Math.round(event.durationMs * 1000) / 1000,
      },
    };
    if (event.failed) logger.warn(line, `${message} failed`);
    else logger.info(line, message);
  };
}

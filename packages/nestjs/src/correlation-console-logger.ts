import { ConsoleLogger } from '@nestjs/common';
import { correlationFields, resolveFieldNames } from '@ambient/core/internal';
import { errors } from './errors.js';

const names = resolveFieldNames(undefined, 'CorrelationConsoleLogger', errors);

type JsonLogObject = ReturnType<ConsoleLogger['getJsonLogObject']>;

/**
 * Nest's `ConsoleLogger`, every line of it with the request's correlation values, written where a request or a
 * job run is open: in JSON mode (`json: true`) as fields beside `message` (`requestId`, `correlationId`,
 * `causationId`, `traceId`, `spanId`, `job`, as `correlationMixin()` writes them for pino), in text mode as
 * `requestId=…` after the context. Takes ConsoleLogger's options; `new Logger(Name)` in any service writes
 * through it once it is the application's logger.
 *
 *     const app = await NestFactory.create(AppModule, { logger: new CorrelationConsoleLogger({ json: true }) });
 */
export class CorrelationConsoleLogger extends ConsoleLogger {
  protected override getJsonLogObject(...args: Parameters<ConsoleLogger['getJsonLogObject']>): JsonLogObject {
    const object = super.getJsonLogObject(...args);
    const fields = correlationFields(names);
    return fields === undefined ? object : { ...object, ...fields };
  }

  protected override formatContext(context: string): string {
    const formatted = super.formatContext(context);
    const fields = correlationFields(names);
    if (fields === undefined) return formatted;
    let written = '';
    for (const [key, value] of Object.entries(fields)) {
      written += `${key}=${typeof value === 'string' ? value : JSON.stringify(value)} `;
    }
    return formatted + written;
  }
}

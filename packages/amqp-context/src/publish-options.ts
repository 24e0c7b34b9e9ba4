import { contextCarrier } from '@ambient/correlation';
import { errors } from './errors.js';

/** The publish options of amqplib's `publish` and `sendToQueue` that this package touches. */
export interface PublishOptionsLike {
  headers?: Record<string, unknown>;
  [option: string]: unknown;
}

/**
 * amqplib publish options (`publish`, `sendToQueue`) carrying the current scope (contextCarrier()) in `headers`.
 * Headers already in `options` win; @opentelemetry/instrumentation-amqplib, when loaded, writes its own
 * `traceparent` over ours inside publish, so the trace is never injected twice. Returns a new object; outside
 * any scope, a copy of `options`.
 *
 *     channel.sendToQueue('mail', body, publishOptions({ persistent: true }));
 */
export function publishOptions<O extends PublishOptionsLike>(options?: O): O & { headers: Record<string, unknown> } {
  if (options !== undefined && (typeof options !== 'object' || options === null)) {
    throw errors.invalidArgument('publishOptions(options)', 'amqplib publish options (an object)', options);
  }
  const headers = options?.headers;
  if (headers !== undefined && (typeof headers !== 'object' || headers === null)) {
    throw errors.invalidOption('publishOptions(options)', 'headers', 'an object', headers);
  }
  return { ...(options as O), headers: { ...contextCarrier(), ...headers } };
}

// What the app and the worker share: the queue, the telemetry (the same on both sides) and a logger whose every
// line carries the correlation fields.
import pino from 'pino';
import { bullmqTelemetry } from '@ambient/bullmq-context';
import { correlationMixin } from '@ambient/pino-context';

export const connection = { host: '127.0.0.1', port: 6379, maxRetriesPerRequest: null };
export const queueName = process.env.QUEUE ?? 'ambient-example-mail';
export const telemetry = bullmqTelemetry();

/** pino with the correlation fields, writing to `destination` (stdout by default). */
export function createLogger(name, destination = 1) {
  return pino({ name, mixin: correlationMixin(), base: { service: name } }, pino.destination(destination));
}

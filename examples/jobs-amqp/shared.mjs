// What the app and the consumer share: the broker, the queue names and a logger whose every line carries the
// correlation fields.
import pino from 'pino';
import { correlationMixin } from '@ambient/pino-context';

export const brokerUrl = 'amqp://guest:guest@127.0.0.1:5672';
const prefix = process.env.QUEUE_PREFIX ?? 'ambient-example';
export const queues = { orders: `${prefix}-orders`, invoices: `${prefix}-invoices` };

/** pino with the correlation fields, writing to `destination` (stdout by default). */
export function createLogger(name, destination = 1) {
  return pino({ name, mixin: correlationMixin(), base: { service: name } }, pino.destination(destination));
}

// What the app and the consumer share: where the brokers are, the subject and topics, and a logger whose every
// line carries the correlation fields.
import pino from 'pino';
import { correlationMixin } from '@ambient/pino-context';

export const natsServer = '127.0.0.1:4222';
export const mqttUrl = 'mqtt://127.0.0.1:1883';
const prefix = process.env.TOPIC_PREFIX ?? 'ambient-example';
export const names = { orders: `${prefix}.orders`, audit: `${prefix}/audit`, shipments: `${prefix}/shipments` };

/** pino with the correlation fields, writing to `destination` (stdout by default). */
export function createLogger(name, destination = 1) {
  return pino({ name, mixin: correlationMixin(), base: { service: name } }, pino.destination(destination));
}

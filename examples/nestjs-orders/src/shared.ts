// What the three processes share: the broker and the queue, Ambient's BullMQ telemetry, and Nest's logger in JSON
// mode with the correlation fields.
import { Transport, type NatsOptions } from '@nestjs/microservices';
import { BullModule } from '@nestjs/bullmq';
import { bullmqTelemetry } from '@ambient/bullmq-context';
import { CorrelationConsoleLogger } from '@ambient/nestjs';

/** This run's names: the demo runs each time on a queue and subjects of its own. */
export const run = process.env.ORDERS_RUN ?? 'orders';
export const invoices = `${run}-invoices`;
export const orderPlaced = `${run}.order-placed`;

export const nats: NatsOptions = { transport: Transport.NATS, options: { servers: ['nats://127.0.0.1:4222'] } };

export const queues = BullModule.forRoot({
  connection: { host: '127.0.0.1', port: 6379, maxRetriesPerRequest: null },
  telemetry: bullmqTelemetry(), // the same in the API and in the worker
});

/** Nest's ConsoleLogger, one JSON line a message, with the request's (or the job's) ids on every line. */
export const logger = new CorrelationConsoleLogger({ json: true });

// The consumer side, a process of its own: each message is handled as a run with a fresh requestId, the
// request or run that published it as causationId, and the chain's correlationId. An order publishes an
// invoice from inside its run: a chain request -> message -> message.
import amqp from 'amqplib';
import { consumeHandler, publishOptions } from '@ambient/amqp-context';
import { brokerUrl, createLogger, queues } from './shared.mjs';

const logger = createLogger('worker', process.env.LOG_FILE ?? 1);
const connection = await amqp.connect(brokerUrl);
const channel = await connection.createChannel();
await channel.assertQueue(queues.orders, { durable: false });
await channel.assertQueue(queues.invoices, { durable: false });
await channel.prefetch(5);

const work = () => new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 20));

await channel.consume(
  queues.orders,
  consumeHandler(
    async (message) => {
      const order = JSON.parse(message.content.toString());
      logger.info('message received');
      await work();
      channel.sendToQueue(queues.invoices, Buffer.from(JSON.stringify(order)), publishOptions());
      logger.info({ item: order.item }, 'order stored, invoice published');
      channel.ack(message);
      process.send?.({ handled: 'order' });
    },
    { queue: queues.orders },
  ),
);
await channel.consume(
  queues.invoices,
  consumeHandler(
    async (message) => {
      logger.info('message received');
      await work();
      logger.info('invoice sent');
      channel.ack(message);
      process.send?.({ handled: 'invoice' });
    },
    { queue: queues.invoices },
  ),
);

process.on('message', async (message) => {
  if (message !== 'stop') return;
  await channel.close();
  await connection.close();
  process.exit(0);
});
process.send?.('ready');

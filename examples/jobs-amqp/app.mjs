// The web side: express with expressContext; placing an order publishes a message and never passes ids on:
// publishOptions() puts the request's carrier in the message's headers.
import express from 'express';
import { publishOptions } from '@ambient/amqp-context';
import { expressContext } from '@ambient/express-context';
import { createLogger, queues } from './shared.mjs';

export function createApp(channel, { logDestination } = {}) {
  const logger = createLogger('web', logDestination);
  const app = express();
  app.use(expressContext());
  app.use(express.json());
  app.post('/orders', (req, res) => {
    logger.info({ item: req.body.item }, 'placing order');
    channel.sendToQueue(queues.orders, Buffer.from(JSON.stringify(req.body)), publishOptions({ persistent: false }));
    logger.info('order published');
    res.status(202).json({ accepted: true });
  });
  return app;
}

// The web side: express with expressContext; placing an order publishes it to NATS and an audit event to MQTT,
// and never passes ids on: messageHeaders() and publishOptions() put the request's carrier in the NATS headers
// and the MQTT 5 user properties.
import express from 'express';
import { headers } from '@nats-io/transport-node';
import { expressContext } from '@ambient/express-context';
import { publishOptions } from '@ambient/mqtt-context';
import { messageHeaders } from '@ambient/nats-context';
import { createLogger, names } from './shared.mjs';

export function createApp(nc, mqttClient, { logDestination } = {}) {
  const logger = createLogger('web', logDestination);
  const app = express();
  app.use(expressContext());
  app.use(express.json());
  app.post('/orders', async (req, res) => {
    logger.info({ item: req.body.item }, 'placing order');
    nc.publish(names.orders, JSON.stringify(req.body), { headers: messageHeaders(headers()) });
    await mqttClient.publishAsync(names.audit, JSON.stringify({ placed: req.body.item }), publishOptions({ qos: 1 }));
    logger.info('order published to NATS, audit event to MQTT');
    res.status(202).json({ accepted: true });
  });
  return app;
}

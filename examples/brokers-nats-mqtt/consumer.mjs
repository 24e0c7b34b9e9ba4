// The consumer side, a process of its own: each NATS message and each MQTT message is handled as a run with a
// fresh requestId, the request or run that published it as causationId, and the chain's correlationId. An
// order ships over MQTT from inside its run: a chain request -> NATS -> MQTT.
import { connect } from '@nats-io/transport-node';
import mqtt from 'mqtt';
import { messageListener, publishOptions } from '@ambient/mqtt-context';
import { subscriptionCallback } from '@ambient/nats-context';
import { createLogger, mqttUrl, names, natsServer } from './shared.mjs';

const logger = createLogger('worker', process.env.LOG_FILE ?? 1);
const nc = await connect({ servers: natsServer });
const mqttClient = await mqtt.connectAsync(mqttUrl, { protocolVersion: 5 });
const work = () => new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 20));

nc.subscribe(names.orders, {
  queue: 'shipping',
  callback: subscriptionCallback(async (error, message) => {
    if (error !== null) return logger.error({ failure: error.message }, 'subscription failed');
    const order = message.json();
    logger.info('order received over NATS');
    await work();
    await mqttClient.publishAsync(names.shipments, JSON.stringify(order), publishOptions({ qos: 1 }));
    logger.info({ item: order.item }, 'order packed, shipment published to MQTT');
    process.send?.({ handled: 'order' });
  }),
});

mqttClient.on(
  'message',
  messageListener(async (topic) => {
    logger.info(`${topic === names.audit ? 'audit event' : 'shipment'} received over MQTT`);
    await work();
    process.send?.({ handled: topic });
  }),
);
await mqttClient.subscribeAsync([names.audit, names.shipments], { qos: 1 });
await nc.flush();

process.on('message', async (message) => {
  if (message !== 'stop') return;
  await nc.drain();
  await mqttClient.endAsync();
  process.exit(0);
});
process.send?.('ready');

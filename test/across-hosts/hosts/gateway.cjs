// Host a's gateway: express with Ambient. An order is published to NATS JetStream (the request's ids and trace in
// the message headers) and enqueued as a BullMQ job (in its telemetry metadata); the answer tells the client the
// request's id and trace, which the test checks every hop against.
const { api, log, exitOnTerm } = require('./telemetry.cjs');
const http = require('node:http');
const express = require('express');
const { Queue } = require('bullmq');
const { connect, headers } = require('@nats-io/transport-node');
const { jetstream } = require('@nats-io/jetstream');
const { requestContext } = require('@ambient/core');
const { expressContext } = require('@ambient/express-context');
const { bullmqTelemetry } = require('@ambient/bullmq-context');
const { messageHeaders } = require('@ambient/nats-context');

const { ADDRESS, PORT, NATS, REDIS } = process.env;

async function main() {
  const nc = await connect({ servers: NATS });
  const js = jetstream(nc);
  const [host, port] = REDIS.split(':');
  const queue = new Queue('orders', {
    connection: { host, port: Number(port), maxRetriesPerRequest: null },
    telemetry: bullmqTelemetry(),
    defaultJobOptions: { removeOnComplete: true, removeOnFail: 1000 },
  });
  await queue.waitUntilReady();

  const app = express();
  app.use(expressContext());
  app.post('/orders/:n', async (req, res) => {
    const order = { n: Number(req.params.n), slow: req.query.slow === '1' };
    log('order received', { order: order.n });
    // Only the job is slow (a test's order): the message's run must stay within the consumer's ack wait.
    await js.publish('orders.created', JSON.stringify({ n: order.n }), { headers: messageHeaders(headers()) });
    await queue.add('charge', order);
    log('order queued', { order: order.n });
    const { requestId, correlationId } = requestContext.snapshot();
    res.json({ requestId, correlationId, traceId: api.trace.getActiveSpan()?.spanContext().traceId });
  });
  const server = http
    .createServer(app)
    .listen(Number(PORT), ADDRESS, () => console.log(`gateway at ${ADDRESS}:${PORT}`));
  exitOnTerm(async () => {
    await new Promise((resolve) => server.close(resolve));
    await Promise.all([queue.close(), nc.drain()]);
  });
}
main().catch((error) => {
  console.error(error);
  process.exit(1);
});

// Host b's NATS consumer: a durable JetStream pull consumer whose messages are handled through messageHandler,
// each in a span of its own (NATS has no OpenTelemetry instrumentation; the run's context makes the span a child
// of the publisher's). A message is acknowledged once its work is done; one whose ack did not reach the server
// within the ack wait comes again, and is a new run of the same chain.
const { api, log, exitOnTerm, tracer } = require('./telemetry.cjs');
const { connect } = require('@nats-io/transport-node');
const { jetstream, jetstreamManager } = require('@nats-io/jetstream');
const { messageHandler } = require('@ambient/nats-context');
const { orderWork } = require('./order-work.cjs');

const { NATS } = process.env;
const { work, close } = orderWork(log);

async function main() {
  const nc = await connect({ servers: NATS });
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: 'ORDERS', subjects: ['orders.>'] });
  await jsm.consumers.add('ORDERS', {
    durable_name: 'orders',
    ack_policy: 'explicit',
    ack_wait: 2_000_000_000,
    max_ack_pending: 100,
  });
  const consumer = await jetstream(nc).consumers.get('ORDERS', 'orders');
  const messages = await consumer.consume();
  const handle = messageHandler((message) =>
    tracer.startActiveSpan('orders.created process', { kind: api.SpanKind.CONSUMER }, async (span) => {
      try {
        await work(message.json(), 'message received');
        message.ack();
      } catch (error) {
        log('message failed', { failure: String(error) });
        message.nak();
      } finally {
        span.end();
      }
    }),
  );
  (async () => {
    for await (const message of messages) handle(message);
  })();
  console.log('consuming orders.created');
  exitOnTerm(async () => {
    messages.stop();
    await nc.drain();
    await close();
  });
}
main().catch((error) => {
  console.error(error);
  process.exit(1);
});

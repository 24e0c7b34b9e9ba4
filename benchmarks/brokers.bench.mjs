// What Ambient costs a NATS or MQTT message, in process: each message as its client hands it over (NATS: a
// message whose headers the client decodes from the bytes a publisher sent with messageHeaders(); MQTT: a
// PUBLISH packet as mqtt-packet parses it from the bytes a publisher sent with publishOptions()), to an async
// handler that reads its request id after an await. Three handlers each: none (no context), the hand-written
// wrapper (read the headers, one id, one AsyncLocalStorage#run) and Ambient's (messageHandler, messageListener).
// The budgets, on Node 24 (22 and 26 printed): Ambient at most 1.5 µs a message over the hand-written wrapper,
// and the carrier at most 256 bytes on the wire. CPU ns a message over 20,000 messages, the variants alternating
// in 5 rounds in each of 3 fresh processes; the paired per-round differences (the order rotating), with a second
// `none` as the A/A control.
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { als } from './hand-written.mjs';
import { budget, cpuRounds, reportMessageCosts } from './harness.mjs';

const require = createRequire(import.meta.url);
const messages = 20_000;
const rounds = 5;
const processes = 3;
const brokers = ['nats', 'mqtt'];
const names = ['none', 'hand-written', 'ambient'];

/** The carrier a message published inside a traced request with a correlation id takes along. */
async function sentCarrier(publish) {
  const { requestContext } = await import('@ambient/core');
  const store = {
    requestId: randomUUID(),
    correlationId: randomUUID(),
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    spanId: '00f067aa0ba902b7',
    traceFlags: '01',
  };
  return requestContext.run(store, publish);
}

/** NATS: the header bytes a publisher sends, and each message as the subscription hands it over. */
async function natsMessages() {
  const { headers, MsgHdrsImpl } = require('nats');
  const { messageHeaders } = await import('@ambient/nats-context');
  const wire = (await sentCarrier(() => messageHeaders(headers()))).encode();
  // The bytes the carrier adds, past the header block's own `NATS/1.0\r\n` and closing `\r\n`.
  const carrierBytes = wire.byteLength - headers().encode().byteLength;
  const next = () => ({ subject: 'orders.created', data: new Uint8Array(8), headers: MsgHdrsImpl.decode(wire) });
  const handWritten = (handler) => (message) => {
    const received = message.headers;
    const causationId = received?.get('x-request-id') || undefined;
    const store = {
      requestId: randomUUID(),
      causationId,
      correlationId: received?.get('x-correlation-id') || causationId,
      traceparent: received?.get('traceparent') || undefined,
    };
    return als.run(store, handler, message);
  };
  const { messageHandler } = await import('@ambient/nats-context');
  return { carrierBytes, next, call: (handle, message) => handle(message), handWritten, ambient: messageHandler };
}

/** MQTT 5: the PUBLISH packet's bytes, and each message as the client's `message` listener gets it. */
async function mqttMessages() {
  const mqttPacket = require('mqtt-packet');
  const { publishOptions, messageListener } = await import('@ambient/mqtt-context');
  const options = await sentCarrier(() => publishOptions({ qos: 1 }));
  const packet = (properties) =>
    mqttPacket.generate(
      { cmd: 'publish', topic: 'orders/created', payload: Buffer.alloc(8), qos: 1, messageId: 1, properties },
      { protocolVersion: 5 },
    );
  const wire = packet(options.properties);
  const carrierBytes = wire.byteLength - packet(undefined).byteLength;
  const parser = mqttPacket.parser({ protocolVersion: 5 });
  let parsed;
  parser.on('packet', (received) => (parsed = received));
  const next = () => {
    parser.parse(wire);
    return parsed;
  };
  // The client the listener is called on, as an EventEmitter calls it.
  const client = { options: { protocolVersion: 5 } };
  const handWritten = (handler) => (topic, payload, received) => {
    const properties = received.properties?.userProperties;
    const causationId = typeof properties?.['x-request-id'] === 'string' ? properties['x-request-id'] : undefined;
    const store = {
      requestId: randomUUID(),
      causationId,
      correlationId: properties?.['x-correlation-id'] ?? causationId,
      traceparent: properties?.traceparent,
    };
    return als.run(store, handler, topic, payload, received);
  };
  const call = (listener, message) => listener.call(client, message.topic, message.payload, message);
  return { carrierBytes, next, call, handWritten, ambient: messageListener };
}

/** The child: every variant's ns a message, round by round, for one broker. */
async function measure(broker) {
  const { requestContext } = await import('@ambient/core');
  const { carrierBytes, next, call, handWritten, ambient } = await (broker === 'nats' ? natsMessages : mqttMessages)();
  let sink = 0;
  const handlers = {
    none: (wrap) => wrap(async () => (sink += (await null) ?? 1)),
    'hand-written': () => handWritten(async () => (sink += (await null) ?? als.getStore().requestId.length)),
    ambient: () => ambient(async () => (sink += (await null) ?? requestContext.get('requestId').length)),
  };
  const units = {};
  for (const name of [...names, 'none (A/A)']) {
    const handle = name.startsWith('none') ? handlers.none((handler) => handler) : handlers[name]();
    units[name] = () => call(handle, next());
  }
  const ns = await cpuRounds(units, { count: messages, rounds });
  process.stdout.write(JSON.stringify({ ns, carrierBytes, sink: sink > 0 }));
}

export async function run() {
  for (const broker of brokers) {
    const [{ carrierBytes }] = reportMessageCosts(fileURLToPath(import.meta.url), broker, {
      title: `${broker.toUpperCase()} messages in process`,
      processes,
      rounds,
      limitNs: 1500,
    });
    budget(`${broker}: the carrier adds ${carrierBytes} bytes to a message (<= 256)`, carrierBytes <= 256);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === 'measure') await measure(process.argv[3]);
else if (process.argv[1] === fileURLToPath(import.meta.url)) await run();

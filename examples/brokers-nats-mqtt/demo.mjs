// Starts the app here and the consumer in a forked process, places three orders at once (one of them inside a
// chain that already has a correlation id), waits until every order, audit event and shipment is handled, then
// prints every log line of both processes grouped by correlation id: one group per order, across two processes,
// two brokers and three messages.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const up = (port) =>
  new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => resolve(socket.destroy() || true));
    socket.once('error', () => resolve(false));
  });
if (!(await up(4222)) || !(await up(1883))) {
  console.error('This example needs NATS on 127.0.0.1:4222 and Mosquitto on 127.0.0.1:1883. Start them and rerun.');
  process.exit(1);
}

process.env.TOPIC_PREFIX = `ambient-example-${process.pid}`;
const { connect } = await import('@nats-io/transport-node');
const { default: mqtt } = await import('mqtt');
const { createApp } = await import('./app.mjs');
const { mqttUrl, natsServer } = await import('./shared.mjs');
const dir = mkdtempSync(join(tmpdir(), 'ambient-brokers-example-'));
const webLog = join(dir, 'web.log');
const workerLog = join(dir, 'worker.log');

const consumer = fork(new URL('./consumer.mjs', import.meta.url), { env: { ...process.env, LOG_FILE: workerLog } });
await once(consumer, 'message');
const nc = await connect({ servers: natsServer });
const mqttClient = await mqtt.connectAsync(mqttUrl, { protocolVersion: 5 });
const server = http.createServer(createApp(nc, mqttClient, { logDestination: webLog })).listen(0, '127.0.0.1');
await once(server, 'listening');

let handled = 0;
const allHandled = new Promise((resolve) =>
  consumer.on('message', (message) => message?.handled && ++handled === 9 && resolve()),
);
const order = (item, headers = {}) =>
  fetch(`http://127.0.0.1:${server.address().port}/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ item }),
  });
await Promise.all([order('tea'), order('coffee'), order('cocoa', { 'x-correlation-id': 'campaign-2026-11' })]);
await allHandled;
consumer.send('stop');
await once(consumer, 'exit');
server.close();
await nc.close();
await mqttClient.endAsync();

const read = (file) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
const lines = [...read(webLog), ...read(workerLog)].sort((a, b) => a.time - b.time);
// A request that brought no correlation id starts its chain: its messages carry its request id as correlation id.
const groups = new Map();
for (const line of lines) {
  const key = line.correlationId ?? line.requestId;
  groups.set(key, [...(groups.get(key) ?? []), line]);
}
for (const [correlationId, group] of groups) {
  console.log(`\ncorrelationId ${correlationId}`);
  for (const line of group) {
    const run = line.job
      ? `${line.job.system} run ${line.requestId.slice(-6)}, caused by ${line.causationId?.slice(-6)}`
      : `request ${line.requestId.slice(-6)}`;
    console.log(`  ${line.service.padEnd(6)} ${run.padEnd(36)} ${line.msg}`);
  }
}

// Nest microservices under AmbientModule across real processes on this machine's brokers (RabbitMQ
// 127.0.0.1:5672, NATS 127.0.0.1:4222, Mosquitto 127.0.0.1:1883 with MQTT 5): an HTTP request's ClientProxy
// `emit` and `send` carry the request, and the microservice's guard and handlers log in a job scope of their own
// caused by it. A message from a plain client with a forged id gets fresh, valid ids.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { describe, test } from 'node:test';
import { serviceSkip } from '../../../../scripts/services.mjs';
import { jsonLines, startNest } from './nest-process.mjs';

const orders = 10;
const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const brokers = { rmq: 'rabbitmq', nats: 'nats', mqtt: 'mosquitto' };

function request(port, method, path, headers) {
  return new Promise((resolve, reject) => {
    const outgoing = http.request({ host: '127.0.0.1', port, path, method, headers }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode, headers: response.headers, body }));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

async function until(done, ms) {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  return done();
}

for (const transport of ['rmq', 'nats', 'mqtt']) {
  describe(`the ${transport} transport`, async () => {
    // Skipped only where the broker is not reachable on 127.0.0.1, with a loud warning; under CI=true it throws.
    const skip = await serviceSkip(brokers[transport]);

    test('events and requests from a request run in a scope caused by it, guards included', { skip }, async () => {
      const prefix = `ambient-${randomUUID()}`;
      const service = await startNest('12', 'microservice-app.ts', ['service', transport, prefix]);
      const api = await startNest('12', 'microservice-app.ts', ['api', transport, prefix]);
      const handled = () =>
        jsonLines(service.output.stdout).filter((line) =>
          /^(guard|placed|priced|intercepted) o\d+$/.test(line.message ?? ''),
        );
      try {
        for (let n = 0; n < orders; n++) {
          const headers = {
            'x-request-id': `req-${n}`,
            'x-correlation-id': `chain-${n}`,
            traceparent: `00-${traceId}-00f067aa0ba902b7-01`,
          };
          const [placed, priced] = await Promise.all([
            request(api.port, 'POST', `/orders/o${n}`, headers),
            request(api.port, 'GET', `/orders/o${n}/price`, { ...headers, 'x-request-id': `req-${n}-price` }),
          ]);
          assert.equal(placed.status, 201, placed.body);
          assert.equal(priced.status, 200, priced.body);
          assert.deepEqual(JSON.parse(priced.body), { price: 42 });
        }
        // Two guard, two handler and two interceptor lines an order; the wait ends as soon as they are all there.
        await until(() => handled().length === orders * 6, 30_000);
      } finally {
        await api.stop();
        await service.stop();
      }
      // The API's client connected inside its first request: nothing of the connection's own (a NATS status
      // update as it closes) may log as that request.
      const stray = jsonLines(`${api.output.stdout}\n${api.output.stderr}`).filter(
        (line) => line.requestId !== undefined && !/^emitting o\d+$/.test(line.message),
      );
      assert.deepEqual(stray, [], "lines of the API's connection that carry a request's id");
      const lines = handled();
      assert.equal(lines.length, orders * 6, `the service logged\n${service.output.stdout}\n${service.output.stderr}`);
      const runIds = new Set();
      for (const line of lines) {
        const n = line.message.split(' o')[1];
        // A guard line belongs to the event or the request: its causation says which.
        assert.ok([`req-${n}`, `req-${n}-price`].includes(line.causationId), `${line.message}: ${line.causationId}`);
        assert.equal(line.correlationId, `chain-${n}`, `${line.message}: the request's chain`);
        assert.equal(line.traceId, traceId, `${line.message}: the request's trace`);
        assert.match(line.requestId, uuid, `${line.message}: an id of its own`);
        assert.equal(line.job?.system, transport);
        if (line.message.startsWith('placed')) assert.equal(line.causationId, `req-${n}`);
        if (line.message.startsWith('priced')) assert.equal(line.causationId, `req-${n}-price`);
        runIds.add(`${line.requestId} ${line.causationId}`);
      }
      // The guard, the interceptor and the handler of one message share its run: two runs an order.
      assert.equal(new Set(lines.map((line) => line.requestId)).size, orders * 2, 'one run a message');
      assert.equal(runIds.size, orders * 2);
    });

    if (transport !== 'nats') return;
    test('a message from a plain client with forged ids gets fresh, valid ids', { skip }, async () => {
      const { connect, headers } = await import('@nats-io/transport-node');
      const prefix = `ambient-${randomUUID()}`;
      const service = await startNest('12', 'microservice-app.ts', ['service', transport, prefix]);
      const forged = headers();
      forged.set('x-request-id', '<script>alert(1)</script>');
      forged.set('x-correlation-id', 'x'.repeat(500));
      forged.set('traceparent', '00-not-a-trace-01');
      const client = await connect({ servers: ['nats://127.0.0.1:4222'] });
      const placedLine = () => jsonLines(service.output.stdout).find((line) => line.message === 'placed forged');
      try {
        const packet = JSON.stringify({ pattern: `${prefix}/order-placed`, data: { order: 'forged' } });
        client.publish(`${prefix}/order-placed`, packet, { headers: forged });
        client.publish(`${prefix}/order-placed`, JSON.stringify({ pattern: 'x', data: { order: 'bare' } }));
        await client.flush();
        await until(() => placedLine() !== undefined, 30_000);
      } finally {
        await client.close();
        await service.stop();
      }
      const line = placedLine();
      assert.ok(line !== undefined, `the service logged\n${service.output.stdout}\n${service.output.stderr}`);
      assert.match(line.requestId, uuid);
      assert.equal(line.causationId, undefined);
      assert.equal(line.correlationId, undefined);
      assert.equal(line.traceId, undefined);
      assert.ok(!service.output.stdout.includes('<script>'), 'a forged id reached a line');
    });
  });
}

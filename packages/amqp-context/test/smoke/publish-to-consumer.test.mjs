// A request publishes, a consumer in another process handles the message, on the real RabbitMQ at
// 127.0.0.1:5672, with amqplib 2 and 0.10: each message's lines carry a fresh requestId, the request as
// causationId, the chain's correlationId and the request's trace; messages from a plain client with no or
// garbage headers start fresh chains; nothing crosses between messages. A message published from a run continues
// its chain; a consumer with `link: true` keeps the chain and drops the trace; a handler that rejects stays its
// own.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import {
  forkConsumer,
  readLogLines,
  requestHeaders,
  serve,
  tempLogFile,
} from '../../../../scripts/consumer-process.mjs';
import { serviceSkip } from '../../../../scripts/services.mjs';

const require = createRequire(import.meta.url);
// Skipped only where the service is not reachable on 127.0.0.1, with a loud warning; under CI=true serviceSkip
// throws instead, so CI always runs it.
const skip = await serviceSkip('rabbitmq');
const uuidv7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';

for (const amqplib of ['amqplib', 'amqplib010']) {
  // `skip` (above): set only where RabbitMQ is not reachable on 127.0.0.1; under CI=true serviceSkip throws.
  test(`${amqplib}: request -> message -> consumer process`, { skip, timeout: 120_000 }, async (t) => {
    const amqp = require(amqplib);
    const { publishOptions } = require('@ambient/amqp-context');
    const { requestContext } = require('@ambient/core');
    const queue = `ambient-e2e-${randomUUID()}`;
    const linkQueue = `${queue}-link`;
    const logFile = tempLogFile('amqp');
    const connection = await amqp.connect('amqp://guest:guest@127.0.0.1:5672');
    const channel = await connection.createChannel();
    await channel.assertQueue(queue, { durable: false });
    const consumer = await forkConsumer(new URL('./fixtures/consumer.mjs', import.meta.url), {
      QUEUE: queue,
      LINK_QUEUE: linkQueue,
      LOG_FILE: logFile,
      AMQPLIB: amqplib,
    });

    const express = require('express');
    const { expressContext } = require('@ambient/express-context');
    const app = express();
    app.use(expressContext());
    app.use(express.json());
    app.post('/publish', (req, res) => {
      const body = { ...req.body, requestId: requestContext.get('requestId') };
      channel.sendToQueue(
        req.body.kind === 'link' ? linkQueue : queue,
        Buffer.from(JSON.stringify(body)),
        publishOptions({ messageId: `m-${req.body.n ?? req.body.kind}` }),
      );
      res.json(body);
    });
    const server = await serve(app);
    const post = (body, headers) => server.post('/publish', body, headers);
    try {
      const requests = await Promise.all(
        Array.from({ length: 200 }, (_, n) => post({ n }, requestHeaders(n, traceId))),
      );
      const nacked = await post({ kind: 'nack-once', nackFirst: true });
      const chainTrace = `00-${traceId}-00000000000000aa-01`;
      const chain = await post({ kind: 'chain' }, { traceparent: chainTrace, 'x-correlation-id': 'chain-of-two' });
      const linked = await post({ kind: 'link' }, { traceparent: chainTrace });
      const failing = await post({ kind: 'fails' });
      // A plain client, outside any request: no headers, and garbage ones.
      channel.sendToQueue(queue, Buffer.from(JSON.stringify({ kind: 'plain' })));
      channel.sendToQueue(queue, Buffer.from(JSON.stringify({ kind: 'garbage' })), {
        headers: { 'x-request-id': '<script>alert(1)</script>', traceparent: 'nonsense', 'x-correlation-id': 'a b' },
      });
      // 200, nack-once, plain, garbage, chain, chained, link, and the rejection of `fails`.
      await consumer.handled(207);
      await consumer.stop();
      const lines = readLogLines(logFile);
      const handling = lines.filter((line) => line.msg === 'handling');

      await t.test('200 concurrent requests: each message handled once, as its own run of its request', () => {
        for (const [n, request] of requests.entries()) {
          const runs = handling.filter((line) => line.causationId === request.requestId);
          assert.equal(runs.length, 1, `message ${n} handled once`);
          const [run] = runs;
          assert.equal(run.body.requestId, request.requestId);
          assert.match(run.requestId, uuidv7);
          assert.equal(run.correlationId, n % 2 === 0 ? `chain-${n}` : request.requestId);
          assert.equal(run.traceId, traceId);
          assert.deepEqual(run.job, { name: queue, id: `m-${n}`, system: 'amqp', queue, attempt: 1 });
        }
        const crossed = handling.filter(
          (line) => line.body.requestId !== undefined && line.body.requestId !== line.causationId,
        );
        assert.equal(crossed.length, 0);
        assert.equal(new Set(handling.map((line) => line.requestId)).size, handling.length, 'one id per delivery');
      });

      await t.test('ack and nack run in the scope; a requeued message is a new run of the same request', () => {
        const runs = lines.filter((line) => line.causationId === nacked.requestId);
        assert.deepEqual(
          runs.map((line) => line.msg),
          ['handling', 'nacked', 'handling', 'acked'],
        );
        assert.notEqual(runs[0].requestId, runs[2].requestId);
        assert.equal(runs[0].requestId, runs[1].requestId);
        assert.equal(runs[2].requestId, runs[3].requestId);
        assert.equal(runs[2].job.attempt, undefined, 'a classic queue tells only that it was redelivered');
      });

      await t.test(
        'messages from a plain client, with no or garbage headers, start fresh chains; no garbage is logged',
        () => {
          for (const kind of ['plain', 'garbage']) {
            const [run] = handling.filter((line) => line.body.kind === kind);
            assert.match(run.requestId, uuidv7);
            assert.equal(run.causationId, undefined);
            assert.equal(run.correlationId, undefined);
            assert.equal(run.traceId, undefined);
          }
          assert.doesNotMatch(readFileSync(logFile, 'utf8'), /<script>|nonsense|"a b"/);
        },
      );

      await t.test('a message published from a run continues the chain: the run as causation, the same trace', () => {
        const [first] = handling.filter((line) => line.causationId === chain.requestId);
        assert.equal(first.body.kind, 'chain');
        const [next] = handling.filter((line) => line.body.kind === 'chained');
        assert.equal(next.body.previousRun, first.requestId);
        assert.equal(next.causationId, first.requestId);
        assert.equal(next.correlationId, 'chain-of-two');
        assert.equal(first.correlationId, 'chain-of-two');
        assert.equal(next.traceId, traceId);
        assert.match(next.requestId, uuidv7);
        assert.notEqual(next.requestId, first.requestId);
        assert.equal(next.job.id, 'm-chained');
      });

      await t.test('link: true keeps causation and correlation, and none of the trace', () => {
        const runs = lines.filter((line) => line.msg === 'handling linked');
        assert.equal(runs.length, 1);
        const [run] = runs;
        assert.equal(run.causationId, linked.requestId);
        assert.equal(run.correlationId, linked.requestId);
        assert.equal(run.traceId, undefined);
        assert.equal(run.spanId, undefined);
        assert.deepEqual(run.job, { name: linkQueue, id: 'm-link', system: 'amqp', queue: linkQueue, attempt: 1 });
      });

      await t.test("a handler that rejects: the rejection is never seen as another message's run", () => {
        const [run] = handling.filter((line) => line.causationId === failing.requestId);
        assert.equal(run.body.kind, 'fails');
        const unhandled = lines.filter((line) => line.msg === 'unhandled');
        assert.equal(unhandled.length, 1);
        assert.equal(unhandled[0].failure, 'handler failed');
        // Node runs the listener in the context of the promise that rejected (Node 20 to 26): the failing run's.
        assert.equal(unhandled[0].requestId, run.requestId);
        assert.equal(unhandled[0].causationId, failing.requestId);
      });
    } finally {
      server.close();
      await channel.deleteQueue(linkQueue).catch(() => undefined);
      await channel.deleteQueue(queue).catch(() => undefined);
      await channel.close();
      await connection.close();
    }
  });
}

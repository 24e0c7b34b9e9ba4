// A request publishes, a consumer in another process handles the message, on the real NATS server at
// 127.0.0.1:4222 with JetStream, with `nats` 2 and `@nats-io/transport-node` 3: each message's lines carry a
// fresh requestId, the request as causationId, the chain's correlationId and the request's trace; a JetStream
// redelivery is a new run of the same chain; a request is answered in the handler's run; messages from a plain
// client with no or garbage headers start fresh chains; nothing crosses between messages.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import express from 'express';
import { requestContext } from '@ambient/core';
import { expressContext } from '@ambient/express-context';
import { messageHeaders } from '@ambient/nats-context';
import {
  forkConsumer,
  readLogLines,
  requestHeaders,
  serve,
  tempLogFile,
} from '../../../../scripts/consumer-process.mjs';
import { serviceSkip } from '../../../../scripts/services.mjs';
import { natsClient } from './fixtures/nats-clients.mjs';

// Skipped only where NATS is not reachable on 127.0.0.1, with a loud warning; under CI=true serviceSkip throws
// instead, so CI always runs it.
const skip = await serviceSkip('nats');
const uuidv7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const encode = (body) => new TextEncoder().encode(JSON.stringify(body));

for (const client of ['nats', '@nats-io/transport-node']) {
  // `skip` (above): set only where NATS is not reachable on 127.0.0.1; under CI=true serviceSkip throws.
  test(`${client}: request -> message -> consumer process`, { skip, timeout: 120_000 }, async (t) => {
    const nats = await natsClient(client);
    const id = randomUUID().replaceAll('-', '');
    const subjects = `ambient.e2e.${id}`;
    const stream = `AMBIENT_E2E_${id}`;
    const logFile = tempLogFile('nats');
    const nc = await nats.connect({ servers: '127.0.0.1:4222' });
    const js = nats.jetstream(nc);
    const jsm = await nats.jetstreamManager(nc);
    await jsm.streams.add({ name: stream, subjects: [`${subjects}.js.>`] });
    t.after(async () => {
      await jsm.streams.delete(stream).catch(() => undefined);
      await nc.close();
    });
    const consumer = await forkConsumer(new URL('./fixtures/consumer.mjs', import.meta.url), {
      CLIENT: client,
      SUBJECTS: subjects,
      STREAM: stream,
      LOG_FILE: logFile,
    });

    const app = express();
    app.use(expressContext());
    app.use(express.json());
    app.post('/publish', async (req, res) => {
      const body = { ...req.body, requestId: requestContext.get('requestId') };
      const options = { headers: messageHeaders(nats.headers()) };
      if (req.body.n !== undefined) options.msgID = `m-${req.body.n}`;
      await js.publish(`${subjects}.js.${req.body.kind ?? 'order'}`, encode(body), options);
      res.json(body);
    });
    app.post('/ask', async (req, res) => {
      const reply = await nc.request(`${subjects}.rpc`, encode({ kind: 'ask' }), {
        timeout: 30_000,
        headers: messageHeaders(nats.headers()),
      });
      const replyHeaders = Object.fromEntries([...reply.headers].map(([key, [value]]) => [key, value]));
      res.json({ requestId: requestContext.get('requestId'), reply: reply.json(), replyHeaders });
    });
    const { post, close } = await serve(app);
    t.after(close);
    const requests = await Promise.all(
      Array.from({ length: 200 }, (_, n) => post('/publish', { n }, requestHeaders(n, traceId))),
    );
    const nacked = await post('/publish', { kind: 'nak-once' });
    const chainTrace = `00-${traceId}-00000000000000aa-01`;
    const chain = await post('/publish', { kind: 'chain' }, { traceparent: chainTrace, 'x-correlation-id': 'chain-2' });
    const asked = await post('/ask', {}, { 'x-correlation-id': 'asking' });
    // A plain client, outside any request: no headers, and garbage ones.
    await js.publish(`${subjects}.js.plain`, encode({ kind: 'plain' }));
    const garbage = nats.headers();
    garbage.set('x-request-id', '<script>alert(1)</script>');
    garbage.set('traceparent', 'nonsense');
    garbage.set('x-correlation-id', 'a b');
    garbage.append('X-Request-Id', 'said-twice');
    await js.publish(`${subjects}.js.garbage`, encode({ kind: 'garbage' }), { headers: garbage });
    // 200, nak-once, chain, chained, plain, garbage.
    await consumer.handled(205);
    await consumer.stop();
    const lines = readLogLines(logFile);
    const handling = lines.filter((line) => line.msg === 'handling');

    await t.test(
      '200 concurrent requests, 10 runs at once: each message handled once, as its own run of its request',
      () => {
        for (const [n, request] of requests.entries()) {
          const runs = handling.filter((line) => line.causationId === request.requestId);
          assert.equal(runs.length, 1, `message ${n} handled once`);
          const [run] = runs;
          assert.equal(run.body.requestId, request.requestId);
          assert.match(run.requestId, uuidv7);
          assert.equal(run.correlationId, n % 2 === 0 ? `chain-${n}` : request.requestId);
          assert.equal(run.traceId, traceId);
          assert.deepEqual(run.job, {
            name: `${subjects}.js.order`,
            id: `m-${n}`,
            system: 'nats',
            queue: stream,
            attempt: 1,
          });
        }
        // Every line of every run, before and after its awaits.
        const crossed = lines.filter(
          (line) => line.body?.requestId !== undefined && line.body.requestId !== line.causationId,
        );
        assert.equal(crossed.length, 0);
        assert.ok(lines.filter((line) => line.msg === 'acked').length >= 200);
        const [stopped] = lines.filter((line) => line.msg === 'stopped');
        assert.equal(stopped.mostInFlight, 10, 'ten runs at once, no more');
        assert.equal(new Set(handling.map((line) => line.requestId)).size, handling.length, 'one id per delivery');
      },
    );

    await t.test('a JetStream redelivery is a new run of the same chain, its attempt counted', () => {
      const runs = lines.filter((line) => line.causationId === nacked.requestId);
      assert.deepEqual(
        runs.map((line) => [line.msg, line.job.attempt]),
        [
          ['handling', 1],
          ['nacked', 1],
          ['handling', 2],
          ['acked', 2],
        ],
      );
      assert.notEqual(runs[0].requestId, runs[2].requestId);
      assert.equal(runs[0].requestId, runs[1].requestId);
      assert.equal(runs[2].correlationId, nacked.requestId);
    });

    await t.test('a message published from a run continues the chain: the run as causation, the same trace', () => {
      const [first] = handling.filter((line) => line.causationId === chain.requestId);
      const [next] = handling.filter((line) => line.body.kind === 'chained');
      assert.equal(next.body.previousRun, first.requestId);
      assert.equal(next.causationId, first.requestId);
      assert.equal(next.correlationId, 'chain-2');
      assert.equal(next.traceId, traceId);
    });

    await t.test("a request is answered in the handler's run, whose ids the reply carries", () => {
      const [answering] = lines.filter((line) => line.msg === 'answering');
      assert.equal(answering.causationId, asked.requestId);
      assert.equal(answering.correlationId, 'asking');
      assert.equal(answering.job.name, `${subjects}.rpc`);
      assert.equal(asked.reply.answeredBy, answering.requestId);
      assert.equal(asked.replyHeaders['x-request-id'], answering.requestId);
      assert.equal(asked.replyHeaders['x-correlation-id'], 'asking');
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
        assert.doesNotMatch(readFileSync(logFile, 'utf8'), /<script>|nonsense|"a b"|said-twice/);
      },
    );
  });
}

// A request publishes, a consumer in another process handles the message, on the real Mosquitto at
// 127.0.0.1:1883 over MQTT 5, QoS 1: each message's lines carry a fresh requestId, the request as causationId,
// the chain's correlationId and the request's trace; 200 messages from 200 concurrent requests, handled 10 at a
// time through a shared subscription, never carry another request's ids. Messages from a plain client with no
// or garbage user properties, and from an MQTT 3.1.1 client, start fresh chains and leave nothing of the
// garbage in the log. A retained message carries the request that retained it; a message published from a run
// continues its chain; a consumer on MQTT 3.1.1 warns; a handler that rejects stays its own.
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { readLogLines, requestHeaders, serve, tempLogFile } from '../../../../scripts/consumer-process.mjs';
import { serviceSkip } from '../../../../scripts/services.mjs';

const require = createRequire(import.meta.url);
// Skipped only where the service is not reachable on 127.0.0.1, with a loud warning; under CI=true serviceSkip
// throws instead, so CI always runs it.
const skip = await serviceSkip('mosquitto');
const uuidv7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const url = 'mqtt://127.0.0.1:1883';

/**
 * A consumer process (fixtures/consumer.mjs), and a promise of its first `count` handled messages. Not
 * forkConsumer (scripts/consumer-process.mjs): two run at once, each started before the other is ready, and their
 * stderr is read (the MQTT 3.1.1 warning).
 */
function startConsumer(env) {
  const logFile = tempLogFile('mqtt');
  const child = fork(new URL('./fixtures/consumer.mjs', import.meta.url), {
    env: { ...process.env, LOG_FILE: logFile, MAX_IN_FLIGHT: '10', ...env },
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
  });
  // Read by the tests (the warning is there); shown where the process failed.
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text) => (stderr += text));
  child.on('exit', (code) => {
    if (code !== 0) process.stderr.write(stderr);
  });
  const handled = [];
  const waiting = [];
  const ready = new Promise((resolve) =>
    child.on('message', (message) => {
      if (message === 'ready') resolve();
      if (message?.handled === undefined) return;
      handled.push(message.handled);
      for (const wait of waiting) if (handled.length >= wait.count) wait.resolve();
    }),
  );
  const handledCount = (count) =>
    handled.length >= count ? Promise.resolve() : new Promise((resolve) => waiting.push({ count, resolve }));
  const stop = async () => {
    if (child.exitCode !== null) return;
    child.send('stop');
    await once(child, 'exit');
  };
  return { child, logFile, ready, handled, handledCount, stop, stderr: () => stderr };
}

// `skip` (above): set only where Mosquitto is not reachable on 127.0.0.1; under CI=true serviceSkip throws.
test('mqtt 5: request -> message -> consumer process', { skip, timeout: 120_000 }, async (t) => {
  const mqtt = require('mqtt');
  const { publishOptions } = require('@ambient/mqtt-context');
  const { requestContext } = require('@ambient/core');
  const prefix = `ambient-e2e/${randomUUID()}`;
  const topics = { messages: `${prefix}/messages`, retained: `${prefix}/retained`, v3: `${prefix}/v3` };
  const publisher = await mqtt.connectAsync(url, { protocolVersion: 5, reconnectPeriod: 0 });
  const plain = await mqtt.connectAsync(url, { protocolVersion: 5, reconnectPeriod: 0 });
  const v3Publisher = await mqtt.connectAsync(url, { protocolVersion: 4, reconnectPeriod: 0 });
  let consumer;
  let v3Consumer;

  const express = require('express');
  const { expressContext } = require('@ambient/express-context');
  const app = express();
  app.use(expressContext());
  app.use(express.json());
  app.post('/publish', async (req, res) => {
    const body = { ...req.body, requestId: requestContext.get('requestId') };
    const topic = topics[req.body.kind] ?? topics.messages;
    await publisher.publishAsync(
      topic,
      JSON.stringify(body),
      publishOptions({ qos: 1, retain: req.body.kind === 'retained' }),
    );
    res.json(body);
  });
  const server = await serve(app);
  const post = (body, headers) => server.post('/publish', body, headers);
  try {
    // Retained before anyone subscribes: the consumer gets it on subscribing.
    const retained = await post(
      { kind: 'retained' },
      { traceparent: `00-${traceId}-00000000000000bb-01`, 'x-correlation-id': 'retained-chain' },
    );
    consumer = startConsumer({
      // A shared subscription for the stream of messages (no retained messages come through those), a plain
      // one for the retained topic.
      TOPICS: JSON.stringify([`$share/ambient-${randomUUID()}/${topics.messages}`, topics.retained]),
      NEXT_TOPIC: topics.messages,
      PROTOCOL_VERSION: '5',
    });
    v3Consumer = startConsumer({ TOPICS: JSON.stringify([topics.v3]), PROTOCOL_VERSION: '4' });
    await Promise.all([consumer.ready, v3Consumer.ready]);

    const requests = await Promise.all(
      Array.from({ length: 200 }, (_, n) =>
        post(
          { n },
          {
            ...requestHeaders(n, traceId),
            ...(n % 3 === 0 ? { 'x-request-id': `client-request-${n}` } : {}),
          },
        ),
      ),
    );
    const chainTrace = `00-${traceId}-00000000000000aa-01`;
    const chain = await post({ kind: 'chain' }, { traceparent: chainTrace, 'x-correlation-id': 'chain-of-two' });
    const failing = await post({ kind: 'fails' });
    const toV3 = await Promise.all([post({ kind: 'v3' }), post({ kind: 'v3' })]);
    // A plain client, outside any request: no user properties, and garbage ones.
    await plain.publishAsync(topics.messages, JSON.stringify({ kind: 'plain' }), { qos: 1 });
    await plain.publishAsync(topics.messages, JSON.stringify({ kind: 'garbage' }), {
      qos: 1,
      properties: {
        userProperties: {
          'x-request-id': '<script>alert(1)</script>',
          'x-correlation-id': 'an id with spaces',
          traceparent: 'nonsense-traceparent',
          tracestate: '<script>',
        },
      },
    });
    const repeatedTrace = 'feedfacefeedfacefeedfacefeedface';
    await plain.publishAsync(topics.messages, JSON.stringify({ kind: 'repeated' }), {
      qos: 1,
      properties: {
        userProperties: {
          'x-request-id': ['repeated-a', 'repeated-b'],
          'x-correlation-id': ['repeated-c', 'repeated-d'],
          traceparent: [`00-${repeatedTrace}-00000000000000cc-01`, `00-${repeatedTrace}-00000000000000dd-01`],
        },
      },
    });
    // MQTT 3.1.1 has no properties: publishOptions inside a scope sends the message as it is, carrying nothing.
    await requestContext.run({ requestId: 'v3-publisher-request' }, () =>
      v3Publisher.publishAsync(topics.messages, JSON.stringify({ kind: 'from-v3' }), publishOptions({ qos: 1 })),
    );
    // retained, 200, chain, chained, fails and its rejection, plain, garbage, repeated, from-v3: 209.
    await consumer.handledCount(209);
    await v3Consumer.handledCount(2);
    await Promise.all([consumer.stop(), v3Consumer.stop()]);
    const lines = readLogLines(consumer.logFile);
    const handling = lines.filter((line) => line.msg === 'handling');

    await t.test('200 concurrent requests: each message handled once, as its own run of its request', () => {
      for (const [n, request] of requests.entries()) {
        assert.equal(request.header, n % 3 === 0 ? `client-request-${n}` : request.requestId);
        const runs = handling.filter((line) => line.causationId === request.header);
        assert.equal(runs.length, 1, `message ${n} handled once`);
        const [run] = runs;
        assert.equal(run.body.n, n);
        assert.match(run.requestId, uuidv7);
        assert.equal(run.correlationId, n % 2 === 0 ? `chain-${n}` : request.header);
        assert.equal(run.traceId, traceId);
        assert.deepEqual(run.job, { name: topics.messages, system: 'mqtt' });
      }
      const crossed = handling.filter(
        (line) => line.body.requestId !== undefined && line.body.requestId !== line.causationId,
      );
      assert.equal(crossed.length, 0);
      assert.equal(new Set(handling.map((line) => line.requestId)).size, handling.length, 'one id per delivery');
      const handled = lines.filter((line) => line.msg === 'handled');
      for (const line of handled) {
        const [run] = handling.filter((start) => start.requestId === line.requestId);
        assert.deepEqual(line.body, run.body, 'a run keeps its ids across its awaits');
      }
    });

    await t.test('the consumer ran 10 handlers at once, never more', () => {
      const [stopped] = lines.filter((line) => line.msg === 'stopped');
      assert.equal(stopped.mostInFlight, 10);
    });

    await t.test(
      'messages from a plain client, with no, garbage or repeated user properties, start fresh chains',
      () => {
        for (const kind of ['plain', 'garbage', 'repeated']) {
          const runs = handling.filter((line) => line.body.kind === kind);
          assert.equal(runs.length, 1);
          assert.match(runs[0].requestId, uuidv7);
          assert.equal(runs[0].causationId, undefined);
          assert.equal(runs[0].correlationId, undefined);
          assert.equal(runs[0].traceId, undefined);
        }
        assert.doesNotMatch(
          readFileSync(consumer.logFile, 'utf8'),
          /<script>|an id with spaces|nonsense-traceparent|repeated-[abcd]|feedface|v3-publisher-request/,
        );
      },
    );

    await t.test('an MQTT 3.1.1 publisher: the message arrives as it was sent, and starts a fresh chain', () => {
      const [run] = handling.filter((line) => line.body.kind === 'from-v3');
      assert.deepEqual(run.body, { kind: 'from-v3' });
      assert.match(run.requestId, uuidv7);
      assert.equal(run.causationId, undefined);
    });

    await t.test('a retained message carries the request that retained it, to a later subscriber', () => {
      const [run] = handling.filter((line) => line.body.kind === 'retained');
      assert.equal(run.retain, true);
      assert.equal(run.topic, topics.retained);
      assert.equal(run.causationId, retained.header);
      assert.equal(run.correlationId, 'retained-chain');
      assert.equal(run.traceId, traceId);
      assert.match(run.requestId, uuidv7);
    });

    await t.test('a message published from a run continues the chain: the run as causation, the same trace', () => {
      const [first] = handling.filter((line) => line.causationId === chain.header);
      assert.equal(first.body.kind, 'chain');
      const [next] = handling.filter((line) => line.body.kind === 'chained');
      assert.equal(next.body.previousRun, first.requestId);
      assert.equal(next.causationId, first.requestId);
      assert.equal(next.correlationId, 'chain-of-two');
      assert.equal(first.correlationId, 'chain-of-two');
      assert.equal(next.traceId, traceId);
      assert.match(next.requestId, uuidv7);
      assert.notEqual(next.requestId, first.requestId);
    });

    await t.test("a handler that rejects: the rejection is never seen as another message's run", () => {
      const [run] = handling.filter((line) => line.causationId === failing.header);
      assert.equal(run.body.kind, 'fails');
      const unhandled = lines.filter((line) => line.msg === 'unhandled');
      assert.equal(unhandled.length, 1);
      assert.equal(unhandled[0].failure, 'handler failed');
      // Node runs the listener in the context of the promise that rejected (Node 20 to 26): the failing run's.
      assert.equal(unhandled[0].requestId, run.requestId);
      assert.equal(unhandled[0].causationId, failing.header);
    });

    await t.test('MQTT 5 consumers do not warn; one on MQTT 3.1.1 warns once, and starts fresh chains', () => {
      assert.equal(lines.filter((line) => line.msg === 'warning').length, 0);
      assert.doesNotMatch(consumer.stderr(), /WARN_AMBIENT/);
      assert.equal(v3Consumer.stderr().match(/\[WARN_AMBIENT_MQTT_NOT_V5\]/g)?.length, 1);
      const v3Lines = readLogLines(v3Consumer.logFile);
      const warnings = v3Lines.filter((line) => line.msg === 'warning');
      assert.deepEqual(
        warnings.map((line) => line.warningCode),
        ['WARN_AMBIENT_MQTT_NOT_V5'],
      );
      const runs = v3Lines.filter((line) => line.msg === 'handling');
      assert.deepEqual(runs.map((line) => line.body.requestId).sort(), toV3.map((request) => request.requestId).sort());
      for (const run of runs) {
        assert.match(run.requestId, uuidv7);
        assert.equal(run.causationId, undefined);
        assert.equal(run.correlationId, undefined);
        assert.equal(run.traceId, undefined);
      }
    });
  } finally {
    await consumer?.stop();
    await v3Consumer?.stop();
    server.close();
    // An empty retained message clears the topic.
    await publisher.publishAsync(topics.retained, '', { qos: 1, retain: true }).catch(() => undefined);
    await Promise.all([publisher.endAsync(), plain.endAsync(), v3Publisher.endAsync()]);
  }
});

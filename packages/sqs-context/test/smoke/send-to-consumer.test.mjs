// A request sends an SQS message, a consumer in another process handles it with sqs-consumer, through the real
// AWS SDK, against fauxqs (an SQS emulator from npm, run in this process, reached only on 127.0.0.1) behind
// fixtures/strict-sqs.mjs, which holds it to SQS's limit of 10 message attributes and to SQS returning only the
// attributes a receive asks for. Each message's lines carry a fresh requestId, the request as causationId, the
// chain's correlationId and the request's trace; nothing crosses between 200 messages handled 10 at a time; a
// redelivery is a new run of the same request; messages from a plain client with no or garbage attributes start
// fresh chains; a message with 8 or 10 attributes of its own keeps them all, the ids taking what room is left,
// and a warning names the ids that did not fit. A raw ReceiveMessage loop gets the ids only when it asks for
// messageAttributeNames().
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
import { strictSqs } from './fixtures/strict-sqs.mjs';

const require = createRequire(import.meta.url);
const uuidv7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const ids = ['x-request-id', 'x-correlation-id', 'traceparent', 'tracestate'];
// The SDK warns once per process on Node 20 that its releases from 2027 will need Node 22: not this test's
// concern, and it would be the only line on stderr.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

/** `count` String attributes of the message's own, user.0 … user.<count - 1>. */
const own = (count) =>
  Object.fromEntries(
    Array.from({ length: count }, (_, n) => [`user.${n}`, { DataType: 'String', StringValue: `v${n}` }]),
  );
const ownNames = (count) => Object.keys(own(count));

test('request -> SQS message -> sqs-consumer process', { timeout: 180_000 }, async (t) => {
  const { startFauxqs } = await import('fauxqs');
  const {
    SQSClient,
    SendMessageCommand,
    SendMessageBatchCommand,
    ReceiveMessageCommand,
  } = require('@aws-sdk/client-sqs');
  const { messageAttributeNames, messageAttributes, messageHandler } = require('@ambient/sqs-context');
  const { requestContext } = require('@ambient/core');
  const fauxqs = await startFauxqs({ port: 0, logger: false });
  const strict = await strictSqs(fauxqs.port);
  const queue = `ambient-e2e-${randomUUID()}`;
  const rawQueue = `${queue}-raw`;
  const { queueUrl } = fauxqs.createQueue(queue);
  const { queueUrl: rawQueueUrl } = fauxqs.createQueue(rawQueue);
  const sqs = new SQSClient({
    endpoint: strict.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  const warnings = [];
  const onWarning = (warning) => {
    if (String(warning.code).startsWith('WARN_AMBIENT_SQS')) warnings.push(warning);
  };
  process.on('warning', onWarning);
  const logFile = tempLogFile('sqs');
  const consumer = await forkConsumer(new URL('./fixtures/consumer.mjs', import.meta.url), {
    ENDPOINT: strict.endpoint,
    QUEUE: queue,
    QUEUE_URL: queueUrl,
    LOG_FILE: logFile,
  });

  const express = require('express');
  const { expressContext } = require('@ambient/express-context');
  const app = express();
  app.use(expressContext());
  app.use(express.json());
  app.post('/send', async (req, res, next) => {
    try {
      const body = { ...req.body, requestId: requestContext.get('requestId') };
      const { MessageId } = await sqs.send(
        new SendMessageCommand({
          QueueUrl: queueUrl,
          MessageBody: JSON.stringify(body),
          MessageAttributes: messageAttributes(own(req.body.ownAttributes ?? 0)),
        }),
      );
      res.json({ ...body, messageId: MessageId });
    } catch (error) {
      next(error);
    }
  });
  const server = await serve(app, { onResponse: (response) => assert.equal(response.status, 200) });
  const post = (body, headers) => server.post('/send', body, headers);
  try {
    const requests = await Promise.all(Array.from({ length: 200 }, (_, n) => post({ n }, requestHeaders(n, traceId))));
    // Started now, with 200 messages waiting: each receive is full, 10 runs at once.
    consumer.child.send('start');
    const trace = (span) => ({ traceparent: `00-${traceId}-${span}-01` });
    const retried = await post({ kind: 'fails-once' }, { ...trace('00000000000000a1'), 'x-correlation-id': 'retry' });
    const chain = await post({ kind: 'chain' }, { ...trace('00000000000000a2'), 'x-correlation-id': 'chain-of-two' });
    const eight = await post({ kind: 'own-8', ownAttributes: 8 }, trace('00000000000000a3'));
    const ten = await post({ kind: 'own-10', ownAttributes: 10 }, trace('00000000000000a4'));
    // A plain client, outside any request: no attributes, and garbage ones (a valid-looking id of a Number type).
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify({ kind: 'plain' }) }));
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: JSON.stringify({ kind: 'garbage' }),
        MessageAttributes: {
          'x-request-id': { DataType: 'String', StringValue: '<script>alert(1)</script>' },
          'x-correlation-id': { DataType: 'Number', StringValue: '12345678' },
          traceparent: { DataType: 'String', StringValue: 'nonsense' },
          tracestate: { DataType: 'String', StringValue: 'vendor=evil' },
        },
      }),
    );
    // 200, fails-once (acked on its second attempt), chain, chained, own-8, own-10, plain, garbage.
    await consumer.handled(207);
    await consumer.stop();
    const lines = readLogLines(logFile);
    const handling = lines.filter((line) => line.msg === 'handling');

    await t.test(
      '200 concurrent requests, 10 runs at once: each message handled once, as its own run of its request',
      () => {
        for (const [n, request] of requests.entries()) {
          assert.equal(request.header, request.requestId);
          const runs = handling.filter((line) => line.causationId === request.header);
          assert.equal(runs.length, 1, `message ${n} handled once`);
          const [run] = runs;
          assert.equal(run.body.requestId, request.requestId);
          assert.match(run.requestId, uuidv7);
          assert.equal(run.correlationId, n % 2 === 0 ? `chain-${n}` : request.requestId);
          assert.equal(run.traceId, traceId);
          assert.deepEqual(run.job, { name: queue, id: request.messageId, system: 'sqs', queue, attempt: 1 });
        }
        // Every line with a causation names the request or run that sent its message (own-10's carries none).
        const crossed = lines.filter(
          (line) =>
            line.causationId !== undefined &&
            line.causationId !== line.body.requestId &&
            line.causationId !== line.body.previousRun,
        );
        assert.equal(crossed.length, 0, 'no line carries another request’s ids');
        const [stopped] = lines.filter((line) => line.msg === 'stopped');
        assert.equal(stopped.mostInFlight, 10, 'ten runs at once, no more');
        assert.equal(new Set(handling.map((line) => line.requestId)).size, handling.length, 'one id per delivery');
      },
    );

    await t.test('sqs-consumer asked for the ids by name in every receive, as SQS needs', () => {
      const asked = strict.receives.filter((receive) => receive.queueUrl === queueUrl);
      assert.ok(asked.length > 0);
      for (const { names } of asked) assert.deepEqual(names, ['user.*', ...ids]);
    });

    await t.test('a redelivery is a new run of the same request: same causation and correlation, attempt 2', () => {
      const runs = lines.filter((line) => line.causationId === retried.requestId);
      assert.deepEqual(
        runs.map((line) => [line.msg, line.job.attempt]),
        [
          ['handling', 1],
          ['failing', 1],
          ['handling', 2],
          ['acked', 2],
        ],
      );
      for (const run of runs) {
        assert.equal(run.correlationId, 'retry');
        assert.equal(run.traceId, traceId);
        assert.equal(run.job.id, retried.messageId);
      }
      assert.notEqual(runs[0].requestId, runs[2].requestId);
      assert.equal(runs[0].requestId, runs[1].requestId);
      // sqs-consumer reports the error after the run: its line is outside any scope, and the error is the
      // handler's own, wrapped by sqs-consumer.
      const [reported] = lines.filter((line) => line.msg === 'processing_error');
      assert.match(reported.failure, /first attempt fails/);
      assert.equal(reported.requestId, undefined);
      assert.equal(lines.filter((line) => line.msg === 'error').length, 0);
    });

    await t.test('a message sent from a run continues the chain: the run as causation, the same trace', () => {
      const [first] = handling.filter((line) => line.causationId === chain.requestId);
      assert.equal(first.body.kind, 'chain');
      const [next] = handling.filter((line) => line.body.kind === 'chained');
      assert.equal(next.body.previousRun, first.requestId);
      assert.equal(next.causationId, first.requestId);
      assert.equal(next.correlationId, 'chain-of-two');
      assert.equal(next.traceId, traceId);
      assert.match(next.requestId, uuidv7);
      assert.notEqual(next.requestId, first.requestId);
    });

    await t.test('messages from a plain client, with no or garbage attributes, start fresh chains', () => {
      for (const kind of ['plain', 'garbage']) {
        const runs = handling.filter((line) => line.body.kind === kind);
        assert.equal(runs.length, 1);
        assert.match(runs[0].requestId, uuidv7);
        assert.equal(runs[0].causationId, undefined);
        assert.equal(runs[0].correlationId, undefined);
        assert.equal(runs[0].traceId, undefined);
      }
      assert.doesNotMatch(readFileSync(logFile, 'utf8'), /<script>|nonsense|12345678|vendor=evil/);
    });

    await t.test(
      'a full message keeps all of its own attributes; the ids take the room left, and a warning says which did not fit',
      async () => {
        const [withEight] = handling.filter((line) => line.body.kind === 'own-8');
        assert.deepEqual(withEight.attributes, ownNames(8));
        assert.equal(withEight.causationId, eight.requestId);
        assert.equal(withEight.correlationId, eight.requestId);
        assert.equal(withEight.traceId, undefined, 'traceparent did not fit');
        const [withTen] = handling.filter((line) => line.body.kind === 'own-10');
        assert.deepEqual(withTen.attributes, ownNames(10));
        assert.equal(withTen.causationId, undefined, 'no id fit');
        assert.equal(withTen.correlationId, undefined);
        assert.notEqual(withTen.requestId, ten.requestId);
        assert.deepEqual(
          warnings.map((warning) => warning.code),
          ['WARN_AMBIENT_SQS_ATTRIBUTES_FULL', 'WARN_AMBIENT_SQS_ATTRIBUTES_FULL'],
        );
        assert.match(warnings[0].message, /did not send traceparent:/);
        assert.match(warnings[1].message, /did not send x-request-id, x-correlation-id, traceparent:/);
        // The emulator holds to SQS's limit: the 10 of the message's own were all it could take.
        await assert.rejects(
          sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: '{}', MessageAttributes: own(11) })),
          /exceeds the allowed maximum \[10\]/,
        );
      },
    );

    await t.test('a raw ReceiveMessage loop gets the ids only when it asks for messageAttributeNames()', async () => {
      await requestContext.run({ requestId: 'req-raw', correlationId: 'raw-chain' }, () =>
        sqs.send(
          new SendMessageBatchCommand({
            QueueUrl: rawQueueUrl,
            Entries: ['a', 'b'].map((id) => ({ Id: id, MessageBody: id, MessageAttributes: messageAttributes() })),
          }),
        ),
      );
      const handle = messageHandler((message) => ({ body: message.Body, ...requestContext.snapshot() }), {
        queue: rawQueue,
      });
      /** One receive of one message, handled as a loop over ReceiveMessage's Messages handles each. */
      const receiveOne = async (input) => {
        for (;;) {
          const { Messages = [] } = await sqs.send(
            new ReceiveMessageCommand({ QueueUrl: rawQueueUrl, MaxNumberOfMessages: 1, WaitTimeSeconds: 1, ...input }),
          );
          if (Messages.length > 0) return Messages.map(handle)[0];
        }
      };
      const without = await receiveOne({});
      assert.equal(without.causationId, undefined, 'no attribute asked for, none arrives');
      assert.match(without.requestId, uuidv7);
      const withNames = await receiveOne({ MessageAttributeNames: messageAttributeNames() });
      assert.equal(withNames.causationId, 'req-raw');
      assert.equal(withNames.correlationId, 'raw-chain');
      assert.deepEqual(withNames.job, { name: rawQueue, id: withNames.job.id, system: 'sqs', queue: rawQueue });
    });
  } finally {
    process.off('warning', onWarning);
    if (consumer.child.exitCode === null) consumer.child.kill();
    server.close();
    sqs.destroy();
    strict.close();
    fauxqs.deleteQueue(queue);
    fauxqs.deleteQueue(rawQueue);
    await fauxqs.stop();
  }
});

// A request produces, a consumer in another process handles the record, with no broker (none can be installed
// here): the records' bytes, encoded by kafkajs's own codec as its producer sends them, go over IPC in place of a
// broker, which keeps a record batch's bytes as they are. 200 concurrent requests to an express app with
// expressContext() (each with a traceparent, half with an x-correlation-id) produce with messageHeaders(); the
// consumer logs with pino and correlationMixin(): each record handled once, a fresh requestId, the request as
// causationId, its correlationId and trace; records of a plain producer, with no or garbage headers, start fresh
// chains, and nothing of the garbage is logged; a handler's rejection reaches the consumer's loop as it is.
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

const require = createRequire(import.meta.url);
const uuidv7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const partitions = 10;

test('request -> record -> consumer process', { timeout: 120_000 }, async (t) => {
  const express = require('express');
  const { expressContext } = require('@ambient/express-context');
  const { requestContext } = require('@ambient/core');
  const { messageHeaders } = require('@ambient/kafka-context');
  const { encode } = require('./fixtures/kafkajs-records.cjs');
  const topic = `ambient-e2e-${randomUUID()}`;
  const logFile = tempLogFile('kafka');
  const consumer = await forkConsumer(new URL('./fixtures/consumer.mjs', import.meta.url), { LOG_FILE: logFile });
  t.after(() => consumer.child.connected && consumer.child.kill());

  // What producer.send would hand to the broker, by partition.
  const outbox = Array.from({ length: partitions }, () => []);
  const app = express();
  app.use(expressContext());
  app.use(express.json());
  app.post('/produce', (req, res) => {
    const body = { ...req.body, requestId: requestContext.get('requestId') };
    outbox[(req.body.partition ?? req.body.n) % partitions].push({
      value: JSON.stringify(body),
      headers: messageHeaders(),
    });
    res.json(body);
  });
  const server = await serve(app);
  t.after(server.close);
  const post = (body, headers) => server.post('/produce', body, headers);

  const requests = await Promise.all(Array.from({ length: 200 }, (_, n) => post({ n }, requestHeaders(n, traceId))));
  const failing = await post({ kind: 'fails', partition: 3 });
  // A plain producer, outside any request: no headers, and garbage ones (kafkajs encodes arrays as repeated keys).
  outbox[1].push({ value: JSON.stringify({ kind: 'plain' }) });
  outbox[2].push({
    value: JSON.stringify({ kind: 'garbage' }),
    headers: {
      'x-request-id': '<script>alert(1)</script>',
      'x-correlation-id': ['twice-a', 'twice-b'],
      traceparent: 'nonsense',
      tracestate: Buffer.from([0xff, 0xfe, 0x3c]),
    },
  });
  // Batches of up to 8 records, as a fetch returns a partition's records in batches.
  for (const [partition, messages] of outbox.entries()) {
    for (let at = 0; at < messages.length; at += 8) {
      const bytes = (await encode(messages.slice(at, at + 8))).toString('base64');
      consumer.child.send({ topic, partition, bytes });
    }
  }
  await consumer.handled(203);
  await consumer.stop();
  const lines = readLogLines(logFile);
  const handling = lines.filter((line) => line.msg === 'handling');

  await t.test('200 concurrent requests: each record handled once, as its own run of its request', () => {
    for (const [n, request] of requests.entries()) {
      const runs = handling.filter((line) => line.causationId === request.requestId);
      assert.equal(runs.length, 1, `record ${n} handled once`);
      const [run] = runs;
      assert.equal(run.body.requestId, request.requestId);
      assert.match(run.requestId, uuidv7);
      assert.equal(run.correlationId, n % 2 === 0 ? `chain-${n}` : request.requestId);
      assert.equal(run.traceId, traceId);
      assert.deepEqual(run.job, { name: topic, system: 'kafka', queue: topic });
      const done = lines.filter((line) => line.msg === 'handled' && line.body.n === n);
      assert.deepEqual(
        done.map((line) => line.requestId),
        [run.requestId],
        'the same run after an await',
      );
    }
    const crossed = lines.filter(
      (line) => line.body.requestId !== undefined && line.body.requestId !== line.causationId,
    );
    assert.equal(crossed.length, 0);
    assert.equal(new Set(handling.map((line) => line.requestId)).size, handling.length, 'one id per record');
  });

  await t.test('records of a plain producer, with no or garbage headers, start fresh chains; no garbage logged', () => {
    for (const kind of ['plain', 'garbage']) {
      const [run] = handling.filter((line) => line.body.kind === kind);
      assert.match(run.requestId, uuidv7);
      assert.deepEqual([run.causationId, run.correlationId, run.traceId], [undefined, undefined, undefined]);
    }
    assert.doesNotMatch(readFileSync(logFile, 'utf8'), /<script>|nonsense|twice-/);
  });

  await t.test("a handler's rejection reaches the consumer's loop unchanged, after running in its record's run", () => {
    const [run] = handling.filter((line) => line.body.kind === 'fails');
    assert.equal(run.causationId, failing.requestId);
    const [report] = consumer.reports.filter((message) => message.handled === 'fails');
    assert.deepEqual(report, { handled: 'fails', failed: 'handler failed', sameError: true });
  });
});

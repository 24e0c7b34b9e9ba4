// Log records that reach a Collector by OTLP join by request: the real @opentelemetry/sdk-logs with the real
// OTLP/HTTP exporter, sending to a receiver on 127.0.0.1, on the workspace's SDK line (sdk-logs 0.2x, api 1.9)
// and on the 3.x line (tools/opentelemetry-sdk3). On the first, 200 concurrent express requests log through
// winston (its OpenTelemetry transport beside one that falls behind, as a file or a network transport does under
// load, so that winston formats and sends lines after the log call) and through api-logs: every record carries
// its own request's ids as attributes, and the two bridges' records of a request agree.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startOtlpReceiver } from './otlp-receiver.mjs';
import { requireSdk3, sdk3Skip } from './sdk3.mjs';

const require = createRequire(import.meta.url);
const api = require('@opentelemetry/api');
const { AmbientContextManager, correlationLogProcessor } = require('@ambient/opentelemetry-context');
const { requestContext } = require('@ambient/core');

/** GET path with headers, on a fresh connection; resolves with the status. */
function get(port, path, headers) {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, headers, agent: false }, (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode));
      })
      .on('error', reject);
  });
}

test('SDK 2.x: winston-transport and api-logs records carry their request ids', async () => {
  const { NodeTracerProvider } = require('@opentelemetry/sdk-trace-node');
  const { logs } = require('@opentelemetry/api-logs');
  const { LoggerProvider, BatchLogRecordProcessor } = require('@opentelemetry/sdk-logs');
  const { OTLPLogExporter } = require('@opentelemetry/exporter-logs-otlp-http');
  const { OpenTelemetryTransportV3 } = require('@opentelemetry/winston-transport');
  const winston = require('winston');
  const Transport = require('winston-transport');
  const express = require('express');
  const { expressContext } = require('@ambient/express-context');
  const { correlationFormat, guardWinston } = require('@ambient/winston-context');

  const receiver = await startOtlpReceiver();
  const tracerProvider = new NodeTracerProvider();
  tracerProvider.register({ contextManager: new AmbientContextManager() });
  const loggerProvider = new LoggerProvider({
    processors: [
      correlationLogProcessor(),
      new BatchLogRecordProcessor({ exporter: new OTLPLogExporter({ url: `${receiver.url}/v1/logs` }) }),
    ],
  });
  logs.setGlobalLoggerProvider(loggerProvider);
  const guard = guardWinston({ winston });
  const logger = winston.createLogger({
    format: winston.format.combine(correlationFormat(), winston.format.json()),
    transports: [
      new OpenTelemetryTransportV3(),
      new (class Behind extends Transport {
        log(_info, callback) {
          setImmediate(callback);
        }
      })(),
    ],
  });
  const emitter = logs.getLogger('orders');
  const tracer = api.trace.getTracer('orders');

  const app = express();
  app.use(expressContext());
  app.use((req, res, next) =>
    tracer.startActiveSpan('GET /orders/:id', (span) => {
      res.on('finish', () => span.end());
      next();
    }),
  );
  app.get('/orders/:id', async (req, res) => {
    const want = req.params.id;
    for (let line = 0; line < 20; line++) logger.info('from winston', { want });
    await sleep(Math.random() * 5);
    emitter.emit({ body: 'from api-logs', attributes: { want } });
    res.end();
  });
  const server = http.createServer(app).listen(0, '127.0.0.1');
  await once(server, 'listening');
  // Lines logged outside any request while requests run: winston may send them in a request's context.
  const ticks = setInterval(() => logger.info('outside any request'), 1);
  try {
    const statuses = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        get(server.address().port, `/orders/req-${i}`, {
          'x-request-id': `req-${i}`,
          ...(i % 2 === 0 ? { 'x-correlation-id': `chain-${i}` } : {}),
        }),
      ),
    );
    assert.ok(statuses.every((status) => status === 200));
    clearInterval(ticks);
    emitter.emit({ body: 'outside any request' });
    const sent = () => receiver.records.filter((record) => record.attributes.want !== undefined).length;
    for (let waited = 0; sent() < 200 * 21 && waited < 200; waited++) {
      await loggerProvider.forceFlush();
      await sleep(20);
    }
    assert.equal(sent(), 200 * 21, 'every record of a request reached the receiver');
    const outside = receiver.records.filter((record) => record.body === 'outside any request');
    assert.ok(outside.length > 1, 'lines were logged outside any request');
    const byRequest = new Map();
    for (const record of receiver.records) {
      const { want } = record.attributes;
      if (want === undefined) {
        assert.equal(record.attributes.requestId, undefined, 'a record outside any request has no request id');
        continue;
      }
      const i = Number(want.slice('req-'.length));
      assert.equal(record.attributes.requestId, want, `${record.scope} record of ${want}`);
      assert.equal(record.attributes.correlationId, i % 2 === 0 ? `chain-${i}` : undefined);
      byRequest.set(want, [...(byRequest.get(want) ?? []), record]);
    }
    assert.equal(byRequest.size, 200);
    for (const [want, records] of byRequest) {
      const fromWinston = records.filter((record) => record.body === 'from winston');
      const [fromApi] = records.filter((record) => record.body === 'from api-logs');
      assert.equal(fromWinston.length, 20, want);
      // The winston lines' trace, as correlationFormat() wrote it at the log call, is the api-logs record's own.
      for (const record of fromWinston) {
        assert.equal(record.attributes.traceId, fromApi.traceId, want);
        assert.equal(record.attributes.correlationId, fromApi.attributes.correlationId, want);
      }
    }
  } finally {
    clearInterval(ticks);
    server.close();
    guard.dispose();
    await loggerProvider.shutdown();
    await tracerProvider.shutdown();
    api.trace.disable();
    api.context.disable();
    await receiver.close();
  }
});

// Skipped only on Node below 22.15 (sdk3.mjs's sdk3Skip says why); the Node matrix runs it on every CI run.
test('SDK 3.x: api-logs records carry their request ids', { skip: sdk3Skip }, async () => {
  const { api: api3, sdkLogs, exporter } = requireSdk3();
  const receiver = await startOtlpReceiver();
  const manager = new AmbientContextManager();
  api3.context.setGlobalContextManager(manager.enable());
  const loggerProvider = new sdkLogs.LoggerProvider({
    processors: [
      correlationLogProcessor(),
      new sdkLogs.BatchLogRecordProcessor({
        exporter: new exporter.OTLPLogExporter({ url: `${receiver.url}/v1/logs` }),
      }),
    ],
  });
  const emitter = loggerProvider.getLogger('orders');
  try {
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        requestContext.run({ requestId: `req-${i}`, correlationId: `chain-${i}` }, async () => {
          await sleep(Math.random() * 5);
          emitter.emit({ body: 'from api-logs', attributes: { want: `req-${i}` } });
        }),
      ),
    );
    await loggerProvider.forceFlush();
    assert.equal(receiver.records.length, 50);
    for (const { attributes } of receiver.records) {
      assert.equal(attributes.requestId, attributes.want);
      assert.equal(attributes.correlationId, attributes.want.replace('req-', 'chain-'));
    }
  } finally {
    await loggerProvider.shutdown();
    api3.context.disable();
    manager.disable();
    await receiver.close();
  }
});

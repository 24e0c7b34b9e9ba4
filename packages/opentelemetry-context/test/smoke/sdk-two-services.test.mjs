// The real OpenTelemetry SDK in a plain node process (require-in-the-middle patches real modules, which it
// cannot do under jest's module registry: open-telemetry/opentelemetry-js#3735). NodeTracerProvider runs on
// AmbientContextManager with the http and express instrumentations; two express services on 127.0.0.1, A
// calling B, serve 200 concurrent requests. Each request's spans must form one trace, correctly parented,
// and every pino line of both services must carry that trace's id (and A's lines their own request id).
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

const require = createRequire(import.meta.url);
const { NodeTracerProvider, SimpleSpanProcessor, InMemorySpanExporter } = require('@opentelemetry/sdk-trace-node');
const { registerInstrumentations } = require('@opentelemetry/instrumentation');
const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http');
const { ExpressInstrumentation } = require('@opentelemetry/instrumentation-express');
const api = require('@opentelemetry/api');
const { AmbientContextManager } = require('@ambient/opentelemetry-context');

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
provider.register({ contextManager: new AmbientContextManager() });
registerInstrumentations({ instrumentations: [new HttpInstrumentation(), new ExpressInstrumentation()] });

// Required only now, so that the instrumentations patch them.
const http = require('node:http');
const express = require('express');
const pino = require('pino');
const { expressContext, requestContext } = require('@ambient/express-context');
const { correlationMixin } = require('@ambient/pino-context');

const lines = [];
const sink = new Writable({ write: (chunk, _encoding, done) => done(null, lines.push(JSON.parse(chunk))) });
const logger = pino({ mixin: correlationMixin() }, sink);
const tracer = api.trace.getTracer('ambient-test');

function listen(app) {
  return new Promise((resolve) => {
    const server = http.createServer(app).listen(0, '127.0.0.1', () => resolve(server));
  });
}

function postJson(url, payload) {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json' }, agent: false },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode, body: JSON.parse(body) }));
      },
    );
    request.on('error', reject);
    // Headers first, the body 5 ms later: B's parser then emits the body from the socket, after B's
    // listeners were added, instead of from a buffer drained within the request's scope.
    request.flushHeaders();
    setTimeout(() => request.end(JSON.stringify(payload)), 5);
  });
}

test('200 concurrent requests through two instrumented express services: one trace each, parented, in every log line', async (t) => {
  // B reads its JSON body with its own data/end listeners, added inside the request's scope to a request that
  // http instrumentation bound before the scope existed (body-parser itself binds its callback with an
  // AsyncResource, so it would not show a loss).
  const b = express();
  b.use(expressContext());
  b.post('/invoice', (req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (text += chunk));
    req.on('end', async () => {
      const { n } = JSON.parse(text);
      logger.info({ service: 'B', n }, 'invoice requested');
      await sleep(Math.random() * 5);
      res.json({ traceId: requestContext.get('traceId'), requestId: requestContext.get('requestId') });
    });
  });
  const serverB = await listen(b);
  const urlB = `http://127.0.0.1:${serverB.address().port}`;

  const a = express();
  a.use(expressContext());
  a.get('/orders/:n', async (req, res) => {
    const n = req.params.n;
    logger.info({ service: 'A', n }, 'order requested');
    for (let i = 0; i < 3; i++) await sleep(Math.random() * 3);
    const handlerSpanId = api.trace.getActiveSpan()?.spanContext().spanId;
    const manual = await tracer.startActiveSpan('load-order', async (span) => {
      await sleep(1);
      await Promise.resolve();
      logger.info({ service: 'A', n, manualSpanId: span.spanContext().spanId }, 'inside manual span');
      span.end();
      return span.spanContext().spanId;
    });
    const invoice = await postJson(`${urlB}/invoice`, { n });
    logger.info({ service: 'A', n }, 'order answered');
    res.json({
      n,
      requestId: requestContext.get('requestId'),
      traceId: requestContext.get('traceId'),
      handlerSpanId,
      manual,
      invoice: invoice.body,
    });
  });
  const serverA = await listen(a);
  const urlA = `http://127.0.0.1:${serverA.address().port}`;
  t.after(() => {
    serverA.close();
    serverB.close();
  });

  const count = 200;
  // The test's own requests go through fetch (undici), which the http instrumentation does not trace, so that
  // each request's trace starts at A's server span.
  const responses = await Promise.all(
    Array.from({ length: count }, async (_, n) => {
      const response = await fetch(`${urlA}/orders/${n}`, { headers: { 'x-request-id': `order-${n}` } });
      return { status: response.status, body: await response.json() };
    }),
  );
  // The http instrumentation ends a server span, and the express one its handler span, on the response's
  // 'close', which can come after fetch has the body: 50 ms, then (on a loaded machine, with other smoke tests
  // running beside this one) until both server spans of every request have ended, ten seconds at most.
  await sleep(50);
  const serverSpans = () => exporter.getFinishedSpans().filter((span) => span.kind === api.SpanKind.SERVER).length;
  for (const deadline = Date.now() + 10_000; serverSpans() < 2 * count && Date.now() < deadline;) await sleep(10);
  const spans = exporter.getFinishedSpans();
  const byId = new Map(spans.map((span) => [span.spanContext().spanId, span]));
  const parentOf = (span) => byId.get(span.parentSpanContext?.spanId ?? span.parentSpanId);
  const traces = new Set(spans.map((span) => span.spanContext().traceId));
  assert.equal(traces.size, count, 'one trace per request');

  for (const { status, body } of responses) {
    assert.equal(status, 200);
    const own = spans.filter((span) => span.spanContext().traceId === body.traceId);
    const servers = own.filter((span) => span.kind === api.SpanKind.SERVER);
    const clients = own.filter((span) => span.kind === api.SpanKind.CLIENT);
    assert.equal(servers.length, 2, `trace of order ${body.n}: a server span in A and in B`);
    assert.equal(clients.length, 1, `trace of order ${body.n}: one client span A -> B`);
    const [serverA] = servers.filter(
      (span) => /orders/.test(span.name) || span.attributes['http.route'] === '/orders/:n',
    );
    const [serverOfB] = servers.filter((span) => span !== serverA);
    assert.ok(serverA && serverOfB, 'both server spans named by route');
    assert.equal(parentOf(serverA), undefined, 'A is the root');
    assert.equal(parentOf(serverOfB), clients[0], "B's server span is a child of A's client span (W3C traceparent)");

    const handler = byId.get(body.handlerSpanId);
    assert.ok(handler, 'the span active in the handler was exported');
    assert.equal(handler.attributes['express.type'], 'request_handler');
    let ancestor = parentOf(handler);
    while (ancestor !== undefined && ancestor !== serverA) ancestor = parentOf(ancestor);
    assert.equal(ancestor, serverA, "the express handler span descends from A's server span");
    const manual = byId.get(body.manual);
    assert.equal(manual.name, 'load-order');
    assert.equal(parentOf(manual), handler, 'the manual span, after several awaits, is a child of the handler span');
    assert.equal(parentOf(clients[0]), handler, 'the outgoing client span is a child of the handler span');
    assert.equal(body.invoice.traceId, body.traceId, "B's requestContext reports A's trace");

    const logged = lines.filter((line) => line.n === String(body.n));
    assert.equal(logged.length, 4);
    for (const line of logged)
      assert.equal(line.traceId, body.traceId, `${line.service} ${line.msg} carries the trace id`);
    for (const line of logged.filter((entry) => entry.service === 'A')) assert.equal(line.requestId, `order-${body.n}`);
    assert.match(
      body.invoice.requestId ?? '',
      /^[0-9a-f-]{36}$/,
      "B's handler, run from its body parser's end listener, is in B's request scope",
    );
    for (const line of logged.filter((entry) => entry.service === 'B'))
      assert.equal(line.requestId, body.invoice.requestId);
    const inManual = logged.find((line) => line.msg === 'inside manual span');
    assert.equal(inManual.spanId, inManual.manualSpanId, 'a line inside a span carries that span id');
  }
});

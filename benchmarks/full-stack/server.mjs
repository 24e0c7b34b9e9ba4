// One server of the full-stack benchmark: express 5 on the seed route with what production adds per request:
// a request id, one pino line (to /dev/null) and one span (BatchSpanProcessor, an exporter that drops spans).
//   node server.mjs <bare|no-context|peers|ambient>
//   bare:       express alone: no id, no log line, no span
//   no-context: the same log line and span with no context at all: no context manager (spans have no parent),
//               and a mixin that adds constant ids of the real ids' lengths. No context stack can cost less.
//   peers:      today's usual stack: cls-rtracer, a pino mixin reading rTracer.id(), AsyncLocalStorageContextManager
//   ambient:    expressContext, correlationMixin, AmbientContextManager
import http from 'node:http';
import { createRequire } from 'node:module';
import { serveForBenchmark } from '../load.mjs';
import { findUser } from '../users-route.mjs';

const require = createRequire(import.meta.url);
const [variant] = process.argv.slice(2);
const express = require('express');
const app = express();

if (variant === 'bare') {
  app.get('/users/:id', async (req, res) => {
    const user = await findUser(req.params.id);
    res.json(user);
  });
} else {
  const api = require('@opentelemetry/api');
  const { BasicTracerProvider, BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base');
  const pino = require('pino');
  const dropSpans = {
    export: (_spans, done) => done({ code: 0 }),
    shutdown: async () => {},
    forceFlush: async () => {},
  };
  // Exported every 512 spans (the default batch), never on the 5-second timer: under callgrind a request takes
  // milliseconds, so the timer fired first after a number of spans that depended on the machine's speed, and
  // with it what the heap held and what the collector did (a variant's processes counted up to 16% apart). At
  // load, 512 spans come in well under 5 seconds, so the load runs export in batches of 512 as before; the few
  // spans left when a burst ends go out with the next burst instead of on the timer.
  const batch = new BatchSpanProcessor(dropSpans, { scheduledDelayMillis: 24 * 60 * 60_000 });
  const provider = new BasicTracerProvider({ spanProcessors: [batch] });
  api.trace.setGlobalTracerProvider(provider);
  const destination = pino.destination({ dest: '/dev/null', sync: true });
  let logger;
  if (variant === 'no-context') {
    const ids = {
      requestId: '0190f5a2-7c3e-7d41-8f1a-3b2c4d5e6f70',
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
    };
    logger = pino({ mixin: () => ({ ...ids }) }, destination);
  } else if (variant === 'peers') {
    const { AsyncLocalStorageContextManager } = require('@opentelemetry/context-async-hooks');
    const rTracer = require('cls-rtracer');
    api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    const mixin = () => {
      const span = api.trace.getActiveSpan()?.spanContext();
      return { requestId: rTracer.id(), traceId: span?.traceId, spanId: span?.spanId };
    };
    logger = pino({ mixin }, destination);
    app.use(rTracer.expressMiddleware());
  } else if (variant === 'ambient') {
    const { AmbientContextManager } = require('@ambient/opentelemetry-context');
    const { expressContext } = require('@ambient/express-context');
    const { correlationMixin } = require('@ambient/pino-context');
    api.context.setGlobalContextManager(new AmbientContextManager().enable());
    logger = pino({ mixin: correlationMixin() }, destination);
    app.use(expressContext());
  } else throw new Error(`unknown variant ${variant}`);

  const tracer = api.trace.getTracer('full-stack-benchmark');
  // One span per request, active for the rest of the chain, ended when the response is finished.
  app.use((req, res, next) => {
    tracer.startActiveSpan(`${req.method} /users/:id`, { kind: api.SpanKind.SERVER }, (span) => {
      res.on('finish', () => span.end());
      next();
    });
  });
  app.get('/users/:id', async (req, res) => {
    const user = await findUser(req.params.id);
    logger.info({ userId: req.params.id }, 'user found');
    res.json(user);
  });
}

serveForBenchmark(http.createServer(app));

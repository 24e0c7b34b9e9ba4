// Every host process's OpenTelemetry SDK, set up as a service at scale runs it: spans and log records exported by
// OTLP/HTTP to the Collector (here the receiver on host c) in batches, the SDK on AmbientContextManager, the http
// and pg instrumentations, and correlationLogProcessor() stamping each record with the run's ids. Required first,
// before express, http or pg, so that the instrumentations patch them (CommonJS: require-in-the-middle).
//
// The batch queues are larger than the SDK's default: a burst of the client's concurrent requests fills that
// faster than one exporter empties it, and a full queue drops what comes next.
const api = require('@opentelemetry/api');
const { logs } = require('@opentelemetry/api-logs');
const { NodeTracerProvider, BatchSpanProcessor } = require('@opentelemetry/sdk-trace-node');
const { LoggerProvider, BatchLogRecordProcessor } = require('@opentelemetry/sdk-logs');
const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http');
const { OTLPLogExporter } = require('@opentelemetry/exporter-logs-otlp-http');
const { resourceFromAttributes } = require('@opentelemetry/resources');
const { registerInstrumentations } = require('@opentelemetry/instrumentation');
const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http');
const { PgInstrumentation } = require('@opentelemetry/instrumentation-pg');
const { AmbientContextManager, correlationLogProcessor } = require('@ambient/opentelemetry-context');

const { SERVICE, COLLECTOR } = process.env;
const batch = { maxQueueSize: 65_536, maxExportBatchSize: 1024, scheduledDelayMillis: 200 };
const resource = resourceFromAttributes({ 'service.name': SERVICE, 'process.pid': process.pid });

const tracerProvider = new NodeTracerProvider({
  resource,
  spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: `${COLLECTOR}/v1/traces` }), batch)],
});
tracerProvider.register({ contextManager: new AmbientContextManager() });
const loggerProvider = new LoggerProvider({
  resource,
  processors: [
    correlationLogProcessor(),
    new BatchLogRecordProcessor({ exporter: new OTLPLogExporter({ url: `${COLLECTOR}/v1/logs` }), ...batch }),
  ],
});
logs.setGlobalLoggerProvider(loggerProvider);
registerInstrumentations({ instrumentations: [new HttpInstrumentation(), new PgInstrumentation()] });

const logger = logs.getLogger('orders');

/** Logs `body` with `attributes` through the logs API; the processor adds the ids. */
function log(body, attributes) {
  logger.emit({ body, attributes, severityText: 'INFO' });
}

/** Exports what is buffered and stops both providers: a process's last step on SIGTERM. */
async function shutdown() {
  await Promise.allSettled([tracerProvider.shutdown(), loggerProvider.shutdown()]);
}

/** On SIGTERM: `close()` (the process's own servers and clients), then the SDK's last export, then exit. */
function exitOnTerm(close) {
  process.once('SIGTERM', async () => {
    await close().catch((error) => console.error('close failed', error));
    await shutdown();
    process.exit(0);
  });
}

module.exports = { api, log, exitOnTerm, tracer: api.trace.getTracer('orders') };

// An express app that logs through winston and bunyan, and ships logs through OpenTelemetry's log pipeline by
// OTLP: the ids of the request on every line, in every record.
import { setTimeout as sleep } from 'node:timers/promises';
import express from 'express';
import winston from 'winston';
import bunyan from 'bunyan';
import { logs } from '@opentelemetry/api-logs';
import { LoggerProvider, BatchLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OpenTelemetryTransportV3 } from '@opentelemetry/winston-transport';
import { expressContext } from '@ambient/express-context';
import { correlationFormat, guardWinston } from '@ambient/winston-context';
import { correlationStream } from '@ambient/bunyan-context';
import { correlationLogProcessor } from '@ambient/opentelemetry-context';

/** The app, logging to `out` (a writable for winston's and bunyan's JSON lines) and by OTLP to `otlpUrl`. */
export function createApp({ out, otlpUrl }) {
  const provider = new LoggerProvider({
    processors: [
      correlationLogProcessor(),
      new BatchLogRecordProcessor({ exporter: new OTLPLogExporter({ url: `${otlpUrl}/v1/logs` }) }),
    ],
  });
  logs.setGlobalLoggerProvider(provider);

  guardWinston({ winston });
  const winstonLogger = winston.createLogger({
    format: winston.format.combine(correlationFormat(), winston.format.json()),
    transports: [new winston.transports.Stream({ stream: out }), new OpenTelemetryTransportV3()],
  });
  const bunyanLogger = bunyan.createLogger({ name: 'orders', streams: [correlationStream({ stream: out })] });
  const records = logs.getLogger('orders');

  const app = express();
  app.use(expressContext());
  app.get('/orders/:id', async (req, res) => {
    winstonLogger.info('from winston', { order: req.params.id });
    await sleep(Math.random() * 20);
    bunyanLogger.info({ order: req.params.id }, 'from bunyan');
    await sleep(Math.random() * 20);
    records.emit({ body: 'from api-logs', attributes: { order: req.params.id } });
    res.json({ order: req.params.id });
  });
  return { app, provider };
}

import { requestContext } from '@ambient/core';
import { contextCarrier, runJob } from '@ambient/correlation';
import { setTraceSource } from '@ambient/core/internal';
import { correlationLogProcessor } from '@ambient/opentelemetry-context';
import {
  InMemoryLogRecordExporter,
  LoggerProvider,
  SimpleLogRecordProcessor,
  type LogRecordProcessor,
} from '@opentelemetry/sdk-logs';

const trace = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7' };

function provider(first: LogRecordProcessor) {
  const exporter = new InMemoryLogRecordExporter();
  const loggers = new LoggerProvider({ processors: [first, new SimpleLogRecordProcessor({ exporter })] });
  // The SDK exports once the resource's attributes have settled: flushed before reading.
  const attributes = async () => {
    await loggers.forceFlush();
    return exporter.getFinishedLogRecords().map((record) => record.attributes);
  };
  return {
    logger: loggers.getLogger('test'),
    winstonBridge: loggers.getLogger('@opentelemetry/winston-transport'),
    attributes,
  };
}

describe('correlationLogProcessor', () => {
  it('stamps the ids of the request or job on every record emitted in it, and none outside', async () => {
    const { logger, attributes } = provider(correlationLogProcessor());
    logger.emit({ body: 'outside' });
    requestContext.run({ requestId: 'req-1', correlationId: 'chain-1', ...trace }, () => {
      logger.emit({ body: 'inside', attributes: { own: 1 } });
      logger.emit({ body: 'own id', attributes: { requestId: 'mine' } });
      runJob({ name: 'mail', id: 'job-7', carrier: contextCarrier() }, () => logger.emit({ body: 'job' }));
    });
    const [outside, inside, own, job] = await attributes();
    expect(outside).toEqual({});
    expect(inside).toEqual({ own: 1, requestId: 'req-1', correlationId: 'chain-1' });
    expect(own).toEqual({ requestId: 'mine', correlationId: 'chain-1' });
    expect(job).toMatchObject({ causationId: 'req-1', correlationId: 'chain-1', job: { name: 'mail', id: 'job-7' } });
    expect(job!['requestId']).toEqual(expect.any(String));
    expect(job!['requestId']).not.toBe('req-1');
  });

  it("leaves winston's records to correlationFormat(): winston may send a line after its log call", async () => {
    const { winstonBridge, attributes } = provider(correlationLogProcessor());
    requestContext.run({ requestId: 'req-late' }, () => {
      winstonBridge.emit({ body: 'logged outside, sent late', attributes: {} });
      winstonBridge.emit({ body: 'logged in req-1', attributes: { requestId: 'req-1' } });
    });
    expect(await attributes()).toEqual([{}, { requestId: 'req-1' }]);
  });

  it('writes the trace fields too, or other names, when asked', async () => {
    const processor = correlationLogProcessor({ fields: { traceId: 'traceId', requestId: 'request.id', job: false } });
    const { logger, attributes } = provider(processor);
    requestContext.run({ requestId: 'req-2', ...trace }, () => logger.emit({ body: 'renamed' }));
    expect(await attributes()).toEqual([{ 'request.id': 'req-2', traceId: trace.traceId }]);
  });

  it("writes the active span's trace over the scope's, where a tracer reports one", async () => {
    const span = { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16) };
    setTraceSource(() => span);
    try {
      const { logger, attributes } = provider(
        correlationLogProcessor({ fields: { traceId: 'traceId', spanId: 'spanId' } }),
      );
      requestContext.run({ requestId: 'req-3', ...trace }, () => logger.emit({ body: 'in a span' }));
      expect(await attributes()).toEqual([{ requestId: 'req-3', ...span }]);
    } finally {
      setTraceSource(undefined);
    }
  });

  it('is a processor the SDK can flush and shut down', async () => {
    const processor = correlationLogProcessor();
    await expect(processor.forceFlush()).resolves.toBeUndefined();
    await expect(processor.shutdown()).resolves.toBeUndefined();
  });

  it('rejects options it does not know, with a code', () => {
    expect(() => correlationLogProcessor({ fields: { requestId: 3 } } as never)).toThrow(
      expect.objectContaining({ code: 'ERR_AMBIENT_OPENTELEMETRY_INVALID_OPTION' }),
    );
    expect(() => correlationLogProcessor({ names: {} } as never)).toThrow(
      expect.objectContaining({ code: 'ERR_AMBIENT_OPENTELEMETRY_INVALID_OPTION' }),
    );
  });
});

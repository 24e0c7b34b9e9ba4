import { requestContext } from '@ambient/core';
import { contextCarrier, runJob } from '@ambient/correlation';
import { correlationFormat, guardWinston, type WinstonGuard } from '@ambient/winston-context';
import winston from 'winston';
import { sink, type Line } from './log-sink.js';

const { format } = winston;
const trace = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7' };

let guard: WinstonGuard | undefined;
afterEach(() => {
  guard?.dispose();
  guard = undefined;
  jest.restoreAllMocks();
});

function logger(transport: winston.transport, first: winston.Logform.Format = correlationFormat()) {
  return winston.createLogger({
    level: 'debug',
    format: format.combine(first, format.json()),
    transports: [transport],
  });
}

/** 100 requests, each logging 40 lines in one go and 5 more after awaits: more than winston's buffers hold. */
async function crowd(log: winston.Logger): Promise<void> {
  await Promise.all(
    Array.from({ length: 100 }, (_, i) =>
      requestContext.run({ requestId: `req-${i}` }, async () => {
        for (let line = 0; line < 40; line++) log.info('burst', { want: `req-${i}` });
        for (let line = 0; line < 5; line++) {
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
          log.info('later', { want: `req-${i}` });
        }
      }),
    ),
  );
}

async function settled(lines: Line[], count: number): Promise<void> {
  while (lines.length < count) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('correlationFormat', () => {
  beforeEach(() => {
    guard = guardWinston({ winston });
  });

  it('writes the scope fields inside a request or job, none outside, and keeps a field the line has', async () => {
    const { transport, lines } = sink();
    const log = logger(transport);
    log.info('outside');
    await requestContext.run({ requestId: 'req-1', ...trace }, async () => {
      log.info('inside');
      await new Promise((resolve) => setTimeout(resolve, 1));
      log.warn('own id', { requestId: 'mine' });
      runJob({ name: 'mail', id: 'job-7', carrier: contextCarrier() }, () => log.info('in a job'));
    });
    expect(lines[0]).toEqual({ level: 'info', message: 'outside' });
    expect(lines[1]).toEqual({ level: 'info', message: 'inside', requestId: 'req-1', ...trace });
    expect(lines[2]).toMatchObject({ message: 'own id', requestId: 'mine', traceId: trace.traceId });
    expect(lines[3]).toMatchObject({
      message: 'in a job',
      causationId: 'req-1',
      correlationId: 'req-1',
      traceId: trace.traceId,
      job: { name: 'mail', id: 'job-7' },
    });
    expect(lines[3]!['requestId']).not.toBe('req-1');
  });

  it('renames or leaves out fields', () => {
    const { transport, lines } = sink();
    const log = logger(transport, correlationFormat({ fields: { requestId: 'req_id', spanId: false } }));
    requestContext.run({ requestId: 'req-2', ...trace }, () => log.info('renamed'));
    expect(lines[0]).toEqual({ level: 'info', message: 'renamed', req_id: 'req-2', traceId: trace.traceId });
  });

  it('keeps every line with its own request when a transport falls behind (winston formats the lines later)', async () => {
    const { transport, lines } = sink({ delay: 'immediate' });
    await crowd(logger(transport));
    await settled(lines, 4500);
    expect(lines.filter((line) => line['requestId'] !== line['want'])).toEqual([]);
  });

  it('writes the fields before or after format.splat(), and through child loggers and profile()', () => {
    const { transport, lines } = sink();
    const before = winston.createLogger({
      format: format.combine(correlationFormat(), format.splat(), format.json()),
      transports: [transport],
    });
    const after = winston.createLogger({
      format: format.combine(format.splat(), correlationFormat(), format.json()),
      transports: [transport],
    });
    requestContext.run({ requestId: 'req-3' }, () => {
      for (const log of [before, after]) {
        log.info('%s and %d', 'text', 42, { meta: true });
        log.info('no tokens', { meta: true }, { more: 1 });
        log.child({ component: 'db' }).info('from a child');
        log.profile('work');
        log.profile('work');
      }
    });
    expect(lines).toHaveLength(8);
    expect(lines.every((line) => line['requestId'] === 'req-3')).toBe(true);
    expect(lines[0]).toMatchObject({ message: 'text and 42', meta: true });
    expect(lines[1]).toMatchObject({ message: 'no tokens', meta: true, more: 1 });
    expect(lines[2]).toMatchObject({ component: 'db' });
    expect(lines[3]).toMatchObject({ message: 'work', durationMs: expect.any(Number) as number });
  });

  it("warns when it is in a transport's format, which gets a copy of the line", () => {
    const emitWarning = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const { transport, lines } = sink({ format: format.combine(correlationFormat(), format.json()) });
    const log = winston.createLogger({ transports: [transport] });
    requestContext.run({ requestId: 'req-4' }, () => log.info('transport format'));
    expect(lines[0]).toMatchObject({ requestId: 'req-4' });
    expect(emitWarning.mock.calls.map((call) => call[1])).toEqual([
      { type: 'AmbientWarning', code: 'WARN_AMBIENT_WINSTON_NOT_LOGGER_FORMAT' },
    ]);
  });

  it('rejects options it does not know, with a code', () => {
    expect(() => correlationFormat({ fields: { requestId: '' } })).toThrow(
      expect.objectContaining({ code: 'ERR_AMBIENT_WINSTON_INVALID_OPTION' }),
    );
    expect(() => correlationFormat({ field: {} } as never)).toThrow(
      expect.objectContaining({ code: 'ERR_AMBIENT_WINSTON_INVALID_OPTION' }),
    );
  });
});

describe('without guardWinston', () => {
  it('crosses requests when a transport falls behind, and says so once', async () => {
    const emitWarning = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const { transport, lines } = sink({ delay: 'immediate' });
    await crowd(logger(transport));
    await settled(lines, 4500);
    expect(lines.filter((line) => line['requestId'] !== line['want']).length).toBeGreaterThan(100);
    expect(emitWarning.mock.calls.map((call) => call[1])).toEqual([
      { type: 'AmbientWarning', code: 'WARN_AMBIENT_WINSTON_NOT_GUARDED' },
    ]);
  });

  it('writes nothing on a line logged outside any scope', () => {
    jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const { transport, lines } = sink();
    logger(transport).info('outside');
    expect(lines).toEqual([{ level: 'info', message: 'outside' }]);
  });
});

describe('guardWinston', () => {
  it('takes the winston module, and guarding twice wraps once', () => {
    const Logger = winston.Logger as unknown as { prototype: { write: unknown } };
    const inherited = Logger.prototype.write;
    const first = guardWinston({ winston });
    const guarded = Logger.prototype.write;
    guardWinston({ winston }).dispose();
    expect(Logger.prototype.write).toBe(guarded);
    first.dispose();
    expect(Logger.prototype.write).toBe(inherited);
  });

  it('rejects what is not the winston module, with a code', () => {
    for (const given of [undefined, {}, { winston: {} }, { winston: { Logger: 1 } }]) {
      expect(() => guardWinston(given as never)).toThrow(
        expect.objectContaining({
          code: expect.stringMatching(/^ERR_AMBIENT_WINSTON_INVALID_(OPTION|ARGUMENT)$/) as string,
        }),
      );
    }
  });
});

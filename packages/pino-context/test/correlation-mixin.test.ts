import { AmbientError, requestContext } from '@ambient/core';
import { contextCarrier, runJob } from '@ambient/correlation';
import { setTraceSource, sharedState, type DiagnosticsProbe } from '@ambient/core/internal';
import { correlationMixin } from '@ambient/pino-context';
import pino from 'pino';
import pino9 from 'pino9';
import { logSink } from './log-lines.js';

const trace = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7' };

describe.each([
  ['pino 10', pino],
  ['pino 9', pino9],
])('correlationMixin with %s', (_name, createLogger) => {
  it('adds requestId to every line inside a request, and traceId/spanId when the request has a trace', async () => {
    const { stream, lines } = logSink();
    const logger = createLogger({ mixin: correlationMixin() }, stream);
    await requestContext.run({ requestId: 'req-1' }, async () => {
      logger.info('before await');
      await new Promise((resolve) => setTimeout(resolve, 1));
      logger.info({ extra: 1 }, 'after await');
    });
    await requestContext.run({ requestId: 'req-2', ...trace }, async () => logger.warn('traced'));
    expect(lines.map(({ msg, requestId, traceId, spanId }) => ({ msg, requestId, traceId, spanId }))).toEqual([
      { msg: 'before await', requestId: 'req-1', traceId: undefined, spanId: undefined },
      { msg: 'after await', requestId: 'req-1', traceId: undefined, spanId: undefined },
      { msg: 'traced', requestId: 'req-2', ...trace },
    ]);
    expect(lines[1]!.extra).toBe(1);
  });

  it('inside a job run adds causationId, correlationId and job; the names can change or be left out', async () => {
    const { stream, lines } = logSink();
    const logger = createLogger({ mixin: correlationMixin(), base: undefined, timestamp: false }, stream);
    const renamed = createLogger(
      { mixin: correlationMixin({ fields: { causationId: 'cause', job: false } }), base: undefined, timestamp: false },
      stream,
    );
    const carrier = requestContext.run({ requestId: 'http-9', correlationId: 'chain-9' }, contextCarrier);
    await runJob({ name: 'send-mail', id: '17', system: 'bullmq', queue: 'mail', attempt: 2, carrier }, async () => {
      await new Promise((resolve) => setImmediate(resolve));
      logger.info('in job');
      renamed.info('renamed');
    });
    const runId = lines[0]!.requestId as string;
    expect(runId).not.toBe('http-9');
    expect(lines).toEqual([
      {
        level: 30,
        msg: 'in job',
        requestId: runId,
        causationId: 'http-9',
        correlationId: 'chain-9',
        job: { name: 'send-mail', id: '17', system: 'bullmq', queue: 'mail', attempt: 2 },
      },
      { level: 30, msg: 'renamed', requestId: runId, cause: 'http-9', correlationId: 'chain-9' },
    ]);
  });

  it("takes traceId and spanId from a tracer's active span, the scope's own where none, nothing outside a scope", () => {
    const { stream, lines } = logSink();
    const logger = createLogger({ mixin: correlationMixin() }, stream);
    const span = { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16) };
    let active: typeof span | undefined = span;
    setTraceSource(() => active);
    try {
      requestContext.run({ requestId: 'req-1', ...trace }, () => {
        logger.info('in a span');
        active = undefined;
        logger.info('no span');
        active = span;
      });
      logger.info('outside');
    } finally {
      setTraceSource(undefined);
    }
    expect(lines.map(({ msg, requestId, traceId, spanId }) => ({ msg, requestId, traceId, spanId }))).toEqual([
      { msg: 'in a span', requestId: 'req-1', ...span },
      { msg: 'no span', requestId: 'req-1', ...trace },
      { msg: 'outside', requestId: undefined, traceId: undefined, spanId: undefined },
    ]);
  });

  it('tells @ambient/diagnostics of a line logged outside any scope, and of none inside one', () => {
    const { stream } = logSink();
    const logger = createLogger({ mixin: correlationMixin() }, stream);
    const missed: string[] = [];
    // Where @ambient/diagnostics installs its probe, as it does when it is on.
    const installed = sharedState<{ probe?: DiagnosticsProbe }>('@ambient/diagnostics.probe', () => ({}));
    installed.probe = {
      missedRead: (context) => missed.push(context),
      requestOpened: () => undefined,
      boundary: () => undefined,
    };
    try {
      requestContext.run({ requestId: 'req-1' }, () => logger.info('inside'));
      expect(missed).toEqual([]);
      logger.info('outside');
      expect(missed).toEqual(['requestContext']);
    } finally {
      installed.probe = undefined;
    }
  });

  it('adds nothing outside a request, and shares no object between lines', () => {
    const { stream, lines, raw } = logSink();
    const logger = createLogger({ mixin: correlationMixin(), base: undefined, timestamp: false }, stream);
    logger.info({ a: 1 }, 'first');
    logger.info('second');
    expect(raw).toEqual(['{"level":30,"a":1,"msg":"first"}', '{"level":30,"msg":"second"}']);
    expect(lines).toHaveLength(2);
  });

  it('writes the fields under the configured names and leaves out fields set to false', () => {
    const { stream, lines } = logSink();
    const logger = createLogger(
      { mixin: correlationMixin({ fields: { requestId: 'req_id', traceId: 'trace_id', spanId: false } }) },
      stream,
    );
    requestContext.run({ requestId: 'r', ...trace }, () => logger.info('x'));
    expect(lines[0]).toMatchObject({ req_id: 'r', trace_id: trace.traceId });
    expect(lines[0]).not.toHaveProperty('requestId');
    expect(lines[0]).not.toHaveProperty('spanId');
    expect(lines[0]).not.toHaveProperty('span_id');
  });

  it("chains the user's own mixin: both sets of fields, the user's winning a clash, the call's own object winning over both", () => {
    const { stream, lines } = logSink();
    const calls: Array<[object, number]> = [];
    const logger = createLogger(
      {
        mixin: correlationMixin({
          mixin: (mergeObject, level) => {
            calls.push([mergeObject, level]);
            return { service: 'users', requestId: 'user-wins' };
          },
        }),
      },
      stream,
    );
    requestContext.run({ requestId: 'ambient', ...trace }, () => {
      logger.info({ call: true }, 'inside');
      logger.error({ traceId: 'call-wins' }, 'override');
    });
    logger.info('outside');
    expect(lines[0]).toMatchObject({ service: 'users', requestId: 'user-wins', traceId: trace.traceId, call: true });
    expect(lines[1]).toMatchObject({ traceId: 'call-wins' });
    expect(lines[2]).toMatchObject({ service: 'users', requestId: 'user-wins' });
    expect(lines[2]).not.toHaveProperty('traceId');
    expect(calls.map(([, level]) => level)).toEqual([30, 50, 30]);
    expect(calls[0]![0]).toMatchObject({ call: true });
  });

  it('follows child loggers and values set during the request', () => {
    const { stream, lines } = logSink();
    const logger = createLogger({ mixin: correlationMixin() }, stream).child({ module: 'db' });
    requestContext.run({ requestId: 'first' }, () => {
      logger.info('a');
      requestContext.set('requestId', 'renamed');
      logger.info('b');
    });
    expect(lines.map((line) => [line.module, line.requestId])).toEqual([
      ['db', 'first'],
      ['db', 'renamed'],
    ]);
  });
});

describe('correlationMixin options', () => {
  it.each([
    [{ fields: { requestId: '' } }, /fields.requestId/],
    [{ fields: { requestId: 42 } }, /fields.requestId/],
    [{ fields: { traceid: 'x' } }, /unknown option "fields.traceid"/],
    [{ fields: 'requestId' }, /option "fields"/],
    [{ mixin: 'nope' }, /option "mixin" must be a function/],
    [{ mixn: () => ({}) }, /unknown option "mixn"/],
  ])('rejects %p with ERR_AMBIENT_PINO_INVALID_OPTION', (options, message) => {
    let thrown: unknown;
    try {
      correlationMixin(options as never);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AmbientError);
    expect(thrown).toMatchObject({ code: 'ERR_AMBIENT_PINO_INVALID_OPTION', message: expect.stringMatching(message) });
  });

  it('rejects non-object options with ERR_AMBIENT_PINO_INVALID_OPTION', () => {
    expect(() => correlationMixin(null as never)).toThrow(
      expect.objectContaining({ code: 'ERR_AMBIENT_PINO_INVALID_OPTION' }),
    );
  });
});

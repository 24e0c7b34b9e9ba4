import { AmbientError, requestContext } from '@ambient/core';
import { correlationMixin, requestLogger } from '@ambient/pino-context';
import pino from 'pino';
import { logSink } from './log-lines.js';

describe('requestLogger(base)', () => {
  it("returns a child bound to the request's fields, the same one for the whole request", async () => {
    const { stream, lines } = logSink();
    const base = pino(stream);
    const children = await Promise.all(
      ['a', 'b'].map((requestId) =>
        requestContext.run({ requestId, traceId: `trace-${requestId}` }, async () => {
          const first = requestLogger(base);
          await new Promise((resolve) => setTimeout(resolve, 1));
          const second = requestLogger(base);
          second.info('hello');
          return [first, second];
        }),
      ),
    );
    expect(children[0]![0]).toBe(children[0]![1]);
    expect(children[0]![0]).not.toBe(children[1]![0]);
    expect(children[0]![0]).not.toBe(base);
    expect(
      lines
        .map(({ requestId, traceId }) => ({ requestId, traceId }))
        .sort((x, y) => String(x.requestId).localeCompare(String(y.requestId))),
    ).toEqual([
      { requestId: 'a', traceId: 'trace-a' },
      { requestId: 'b', traceId: 'trace-b' },
    ]);
  });

  it('makes a new child when the values of the request change', () => {
    const { stream, lines } = logSink();
    const base = pino(stream);
    requestContext.run({ requestId: 'before' }, () => {
      const first = requestLogger(base);
      requestContext.set('traceId', 'now-traced');
      const second = requestLogger(base);
      expect(second).not.toBe(first);
      second.info('x');
    });
    expect(lines[0]).toMatchObject({ requestId: 'before', traceId: 'now-traced' });
  });

  it('returns base itself outside a request', () => {
    const base = pino(logSink().stream);
    expect(requestLogger(base)).toBe(base);
  });

  it('returns base itself when it already logs through correlationMixin, so no field is written twice', () => {
    const { stream, raw } = logSink();
    const base = pino({ mixin: correlationMixin() }, stream);
    const child = base.child({ module: 'db' });
    requestContext.run({ requestId: 'once' }, () => {
      expect(requestLogger(base)).toBe(base);
      expect(requestLogger(child)).toBe(child);
      requestLogger(child).info('x');
    });
    expect(raw[0]!.match(/"requestId"/g)).toHaveLength(1);
  });

  it('binds the fields under the configured names, one child per base logger', () => {
    const { stream, lines } = logSink();
    const one = pino(stream);
    const two = pino(stream);
    requestContext.run({ requestId: 'r' }, () => {
      requestLogger(one, { fields: { requestId: 'req_id' } }).info('one');
      expect(requestLogger(two)).not.toBe(requestLogger(one));
      requestLogger(two).info('two');
    });
    expect(lines[0]).toMatchObject({ req_id: 'r' });
    expect(lines[1]).toMatchObject({ requestId: 'r' });
  });

  it('keeps its children out of requestContext keys and away from other requests', () => {
    const base = pino(logSink().stream);
    const first = requestContext.run({ requestId: 'same-id' }, () => {
      requestLogger(base);
      expect(Object.keys(requestContext.snapshot()!)).toEqual(['requestId']);
      return requestLogger(base);
    });
    const second = requestContext.run({ requestId: 'same-id' }, () => requestLogger(base));
    expect(second).not.toBe(first);
  });

  it.each([[undefined], [null], [{}], ['logger']])('rejects %p with ERR_AMBIENT_PINO_INVALID_ARGUMENT', (base) => {
    let thrown: unknown;
    try {
      requestLogger(base as never);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AmbientError);
    expect(thrown).toMatchObject({ code: 'ERR_AMBIENT_PINO_INVALID_ARGUMENT' });
  });

  it('rejects unknown options with ERR_AMBIENT_PINO_INVALID_OPTION', () => {
    expect(() => requestLogger(pino(logSink().stream), { field: {} } as never)).toThrow(
      expect.objectContaining({ code: 'ERR_AMBIENT_PINO_INVALID_OPTION' }),
    );
  });
});

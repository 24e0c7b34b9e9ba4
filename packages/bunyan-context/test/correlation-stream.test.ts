import { Writable } from 'node:stream';
import { requestContext } from '@ambient/core';
import { contextCarrier, runJob } from '@ambient/correlation';
import { correlationStream } from '@ambient/bunyan-context';
import bunyan from 'bunyan';
import bunyan1 from 'bunyan1';

const trace = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7' };

type Record = { readonly [field: string]: unknown };

/** A real stream that keeps what bunyan writes to it: JSON lines parsed back, or records for a raw stream. */
function sink(objectMode = false) {
  const records: Record[] = [];
  const stream = new Writable({
    objectMode,
    write(chunk: Buffer | Record, _encoding, callback) {
      if (objectMode) records.push({ ...(chunk as Record) });
      else
        for (const line of (chunk as Buffer).toString().split('\n').filter(Boolean))
          records.push(JSON.parse(line) as Record);
      callback();
    },
  });
  return { stream, records };
}

describe.each([
  ['bunyan 2', bunyan],
  ['bunyan 1', bunyan1],
])('correlationStream with %s', (_name, createLogger) => {
  it('writes the scope fields on every record inside a request or job, none outside', async () => {
    const { stream, records } = sink();
    const log = createLogger.createLogger({ name: 'api', streams: [correlationStream({ stream })] });
    log.info('outside');
    await requestContext.run({ requestId: 'req-1', ...trace }, async () => {
      log.info('inside');
      await new Promise((resolve) => setTimeout(resolve, 1));
      log.info({ requestId: 'mine' }, 'own id');
      runJob({ name: 'mail', id: 'job-7', carrier: contextCarrier() }, () =>
        log.child({ component: 'mail' }).warn('job'),
      );
    });
    expect(records.map(({ msg, requestId, traceId }) => ({ msg, requestId, traceId }))).toEqual([
      { msg: 'outside', requestId: undefined, traceId: undefined },
      { msg: 'inside', requestId: 'req-1', traceId: trace.traceId },
      { msg: 'own id', requestId: 'mine', traceId: trace.traceId },
      { msg: 'job', requestId: expect.any(String) as string, traceId: trace.traceId },
    ]);
    expect(records[0]).toMatchObject({ name: 'api', level: 30, v: 0 });
    expect(records[1]).toMatchObject({ spanId: trace.spanId });
    expect(records[3]).toMatchObject({
      component: 'mail',
      causationId: 'req-1',
      correlationId: 'req-1',
      job: { name: 'mail', id: 'job-7' },
    });
  });

  it('carries the fields to every stream it wraps, raw ones as records, at each one’s level', () => {
    const text = sink();
    const raw = sink(true);
    const log = createLogger.createLogger({
      name: 'api',
      streams: [
        correlationStream({ stream: text.stream, level: 'warn' }),
        correlationStream({ stream: raw.stream, type: 'raw' }, { fields: { requestId: 'req_id', traceId: false } }),
      ],
    });
    requestContext.run({ requestId: 'req-2', ...trace }, () => {
      log.info('info only to raw');
      log.error('to both');
    });
    expect(text.records.map(({ msg, requestId }) => ({ msg, requestId }))).toEqual([
      { msg: 'to both', requestId: 'req-2' },
    ]);
    expect(raw.records.map(({ msg, req_id, traceId }) => ({ msg, req_id, traceId }))).toEqual([
      { msg: 'info only to raw', req_id: 'req-2', traceId: undefined },
      { msg: 'to both', req_id: 'req-2', traceId: undefined },
    ]);
  });

  it('writes a record that refers to itself, as bunyan does', () => {
    const { stream, records } = sink();
    const log = createLogger.createLogger({ name: 'api', streams: [correlationStream({ stream })] });
    const looped: { self?: unknown } = {};
    looped.self = looped;
    requestContext.run({ requestId: 'req-3' }, () => log.info({ looped }, 'circular'));
    expect(records[0]).toMatchObject({ msg: 'circular', requestId: 'req-3', looped: { self: '[Circular]' } });
  });
});

it('rejects what is not a stream entry, with a code', () => {
  const codes = /^ERR_AMBIENT_BUNYAN_INVALID_(OPTION|ARGUMENT)$/;
  for (const given of [undefined, {}, { stream: {} }, { stream: process.stdout, type: 'file' }]) {
    expect(() => correlationStream(given as never)).toThrow(
      expect.objectContaining({ code: expect.stringMatching(codes) }),
    );
  }
  expect(() => correlationStream({ stream: process.stdout }, { fields: { job: 1 } } as never)).toThrow(
    expect.objectContaining({ code: 'ERR_AMBIENT_BUNYAN_INVALID_OPTION' }),
  );
});

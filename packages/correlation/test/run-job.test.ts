// runJob: one run of a job, in a fresh requestContext scope from the root, fed by a carrier.
import { AmbientError, Variable, requestContext, type Context } from '@ambient/core';
import { contextCarrier, readCarrier, runJob } from '@ambient/correlation';
import { expectAmbientError } from './helpers/errors.js';

const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const spanId = '00f067aa0ba902b7';
const uuidv7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const worker = new Variable<string>({ name: 'worker' });

describe('runJob(job, fn)', () => {
  const producer = () =>
    requestContext.run({ requestId: 'http-1', traceId, spanId, traceFlags: '01', traceState: 'v=1' }, contextCarrier);

  it('gives the run a new request id, the producer as causation and correlation, and its trace', () => {
    const seen = runJob(
      { name: 'send-mail', id: '42', carrier: producer(), system: 'bullmq', queue: 'mail', attempt: 1 },
      () => requestContext.snapshot(),
    );
    expect(seen).toEqual({
      requestId: expect.stringMatching(uuidv7),
      causationId: 'http-1',
      correlationId: 'http-1',
      traceId,
      spanId,
      traceFlags: '01',
      traceState: 'v=1',
      job: { name: 'send-mail', id: '42', system: 'bullmq', queue: 'mail', attempt: 1 },
    });
  });

  it('keeps one correlation id along request -> job -> job, with each causation the previous run', () => {
    const first = producer();
    const [second, firstRunId] = runJob({ name: 'a', carrier: first }, () => [
      contextCarrier(),
      requestContext.get('requestId'),
    ]);
    const third = runJob({ name: 'b', carrier: second }, () => requestContext.snapshot());
    expect(third).toMatchObject({ causationId: firstRunId, correlationId: 'http-1', traceId });
  });

  it('with link, starts no trace of the producer but keeps causation and correlation', () => {
    const seen = runJob({ name: 'tick', carrier: producer(), link: true }, () => requestContext.snapshot());
    expect(seen).toMatchObject({ causationId: 'http-1', correlationId: 'http-1' });
    expect(seen).not.toHaveProperty('traceId');
    expect(seen).not.toHaveProperty('traceState');
  });

  it('without a carrier (or with a foreign one), starts a fresh chain', () => {
    for (const carrier of [undefined, {}, 'garbage', { 'x-request-id': 'a b c' }]) {
      const seen = runJob({ name: 'j', carrier }, () => requestContext.snapshot());
      expect(seen).toEqual({ requestId: expect.stringMatching(uuidv7), job: { name: 'j' } });
    }
  });

  it('runs from the root: nothing of the caller, its request or its variables, is visible inside', () => {
    const seen = worker.run('startup', () =>
      requestContext.run({ requestId: 'enclosing', userId: 'u1' } as never, () =>
        runJob({ name: 'j' }, () => [
          worker.get(),
          requestContext.get('userId' as never),
          requestContext.get('requestId'),
        ]),
      ),
    );
    expect(seen[0]).toBeUndefined();
    expect(seen[1]).toBeUndefined();
    expect(seen[2]).not.toBe('enclosing');
  });

  it('gives every run its own id and scope, even concurrent ones', async () => {
    const ids = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        runJob({ name: `j${i}` }, async () => {
          await new Promise((resolve) => setTimeout(resolve, 20 - i));
          return [requestContext.get('requestId'), requestContext.get('job')?.name];
        }),
      ),
    );
    expect(new Set(ids.map(([id]) => id)).size).toBe(20);
    ids.forEach(([, name], i) => expect(name).toBe(`j${i}`));
  });

  it('uses the generator given, and the default id where it throws or returns nothing usable', () => {
    expect(runJob({ name: 'j', generateRequestId: () => 'custom-1' }, () => requestContext.get('requestId'))).toBe(
      'custom-1',
    );
    for (const generateRequestId of [
      () => '',
      () => 42 as never,
      () => {
        throw new Error('gen');
      },
    ]) {
      expect(runJob({ name: 'j', generateRequestId }, () => requestContext.get('requestId'))).toMatch(uuidv7);
    }
  });

  it('keeps a job id only when it passes the request-id rule', () => {
    expect(runJob({ name: 'j', id: 'repeat:mail:1700000000000' }, () => requestContext.get('job')?.id)).toBe(
      'repeat:mail:1700000000000',
    );
    expect(runJob({ name: 'j', id: '<img src=x>' }, () => requestContext.get('job'))).toEqual({ name: 'j' });
  });

  it('returns what fn returns and passes its errors through, restoring the caller', async () => {
    expect(runJob({ name: 'j' }, () => 7)).toBe(7);
    const boom = new Error('job failed');
    expect(() =>
      runJob({ name: 'j' }, () => {
        throw boom;
      }),
    ).toThrow(boom);
    await expect(runJob({ name: 'j' }, () => Promise.reject(boom))).rejects.toBe(boom);
    expect(requestContext.active).toBe(false);
  });

  it.each([
    ['no job', undefined, 'ERR_AMBIENT_CORRELATION_INVALID_ARGUMENT'],
    ['a string', 'mail', 'ERR_AMBIENT_CORRELATION_INVALID_ARGUMENT'],
    ['no name', {}, 'ERR_AMBIENT_CORRELATION_INVALID_OPTION'],
    ['an empty name', { name: '' }, 'ERR_AMBIENT_CORRELATION_INVALID_OPTION'],
    ['a typo', { name: 'j', carier: {} }, 'ERR_AMBIENT_CORRELATION_INVALID_OPTION'],
    ['a bad attempt', { name: 'j', attempt: 0 }, 'ERR_AMBIENT_CORRELATION_INVALID_OPTION'],
    ['a bad link', { name: 'j', link: 'yes' }, 'ERR_AMBIENT_CORRELATION_INVALID_OPTION'],
  ])('refuses %s with a coded error', (_what, job, code) => {
    expectAmbientError(() => runJob(job as never, () => undefined), code);
  });

  it('refuses a callback that is not a function', () => {
    expect(() => runJob({ name: 'j' }, 'nope' as never)).toThrow(AmbientError);
  });
});

describe("runJob with readCarrier()'s result as its carrier, for adapters that read the carrier themselves", () => {
  const carrier = requestContext.run(
    { requestId: 'http-9', correlationId: 'chain-1', traceId, spanId },
    contextCarrier,
  );

  it('opens the same scope it opens from the carrier itself, reading nothing twice', () => {
    const job = { name: 'send', id: '7', system: 'amqp', queue: 'mail', attempt: 2 };
    const fromCarrier = runJob({ ...job, carrier }, () => requestContext.snapshot());
    const fields = readCarrier(carrier);
    expect(readCarrier(fields)).toBe(fields);
    const fromRead = runJob({ ...job, carrier: fields }, () => requestContext.snapshot());
    expect(fromRead).toEqual({ ...fromCarrier, requestId: expect.stringMatching(uuidv7) });
    expect(fromRead?.requestId).not.toBe(fromCarrier?.requestId);
    expect(fromRead).toMatchObject({ causationId: 'http-9', correlationId: 'chain-1', traceId, spanId });
  });

  it('honours link with read fields: causation and correlation kept, no trace', () => {
    const seen = runJob({ name: 'send', link: true, carrier: readCarrier(carrier) }, () => requestContext.snapshot());
    expect(seen).toMatchObject({ causationId: 'http-9', correlationId: 'chain-1' });
    expect(seen?.traceId).toBeUndefined();
  });

  it('takes an object shaped like a read result, but not made by readCarrier, as a foreign carrier', () => {
    const forged = { causationId: 'a b c', correlationId: '<script>' };
    const seen = runJob({ name: 'send', carrier: forged }, () => requestContext.snapshot());
    expect(seen).not.toHaveProperty('causationId');
    expect(seen).not.toHaveProperty('correlationId');
  });

  it("opens its scope on values of a scope's own shape (nothing inherited), and the run's writes stay in it", () => {
    const open = requestContext as unknown as Context<Record<string, unknown>>;
    const [inherited, set, again] = runJob({ name: 'send', carrier: readCarrier(carrier) }, () => {
      const read = open.get('toString');
      open.set('user', 'u-1');
      return [read, open.get('user'), runJob({ name: 'send' }, () => open.get('user'))];
    });
    expect(inherited).toBeUndefined();
    expect(set).toBe('u-1');
    expect(again).toBeUndefined();
  });

  it('runs from the root, whatever the caller had', () => {
    const seen = worker.run('startup', () =>
      requestContext.run({ requestId: 'caller', user: 'u' } as never, () =>
        runJob({ name: 'send' }, () => [worker.get(), requestContext.get('requestId')]),
      ),
    );
    expect(seen[0]).toBeUndefined();
    expect(seen[1]).toMatch(uuidv7);
  });
});

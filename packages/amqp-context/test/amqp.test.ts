// publishOptions and consumeHandler on message objects shaped as amqplib delivers them (the real broker:
// test/smoke/publish-to-consumer.test.mjs).
import { AmbientError, requestContext } from '@ambient/core';
import { contextCarrier } from '@ambient/correlation';
import { consumeHandler, publishOptions, type ConsumeMessageLike } from '@ambient/amqp-context';

const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const spanId = '00f067aa0ba902b7';
const message = (headers: Record<string, unknown> | undefined, extra: Partial<ConsumeMessageLike['fields']> = {}) => ({
  fields: { routingKey: 'mail.send', redelivered: false, exchange: '', ...extra },
  properties: { headers, messageId: 'm-1' },
  content: Buffer.from('{}'),
});

describe('publishOptions(options)', () => {
  it('adds the current scope to the headers, keeps the options and the headers given', () => {
    const options = { persistent: true, headers: { 'x-tenant': 't1', 'x-request-id': 'set-by-caller' } };
    const published = requestContext.run({ requestId: 'req-1', traceId, spanId, traceFlags: '01' }, () =>
      publishOptions(options),
    );
    expect(published).toEqual({
      persistent: true,
      headers: {
        'x-request-id': 'set-by-caller',
        'x-correlation-id': 'req-1',
        traceparent: `00-${traceId}-${spanId}-01`,
        'x-tenant': 't1',
      },
    });
    expect(options.headers).toEqual({ 'x-tenant': 't1', 'x-request-id': 'set-by-caller' });
  });

  it('outside any scope adds nothing', () => {
    expect(publishOptions()).toEqual({ headers: {} });
    expect(publishOptions({ expiration: '60000' })).toEqual({ expiration: '60000', headers: {} });
  });

  it('refuses options that are no object, and headers that are no object', () => {
    for (const [options, code] of [
      ['persistent', 'ERR_AMBIENT_AMQP_INVALID_ARGUMENT'],
      [{ headers: 'x' }, 'ERR_AMBIENT_AMQP_INVALID_OPTION'],
    ] as const) {
      expect(() => publishOptions(options as never)).toThrow(expect.objectContaining({ code }));
    }
  });
});

describe('consumeHandler(handler, options)', () => {
  it('handles a message in a fresh scope: new id, the publisher as causation, its chain and trace, the job', () => {
    const headers = requestContext.run({ requestId: 'req-1', correlationId: 'chain', traceId, spanId }, contextCarrier);
    const seen = requestContext.run({ requestId: 'enclosing' }, () =>
      consumeHandler(() => requestContext.snapshot(), { queue: 'mail' })(message(headers)),
    );
    expect(seen).toMatchObject({
      causationId: 'req-1',
      correlationId: 'chain',
      traceId,
      job: { name: 'mail.send', id: 'm-1', system: 'amqp', queue: 'mail', attempt: 1 },
    });
    expect(seen?.requestId).not.toMatch(/req-1|enclosing/);
  });

  it('reads the attempt from x-delivery-count (quorum queues), or leaves it out for a redelivery', () => {
    const attempt = (msg: ConsumeMessageLike) => consumeHandler(() => requestContext.get('job')?.attempt)(msg);
    expect(attempt(message({ 'x-delivery-count': 2 }, { redelivered: true }))).toBe(3);
    expect(attempt(message({}, { redelivered: true }))).toBeUndefined();
  });

  it.each([
    ['no headers', undefined],
    ['garbage headers', { 'x-request-id': '<script>', traceparent: 'x', 'x-correlation-id': 42 }],
    ['bytes that are not an id', { 'x-request-id': Buffer.from([0xff, 0xfe]) }],
  ])('a message with %s starts a fresh chain', (_what, headers) => {
    const seen = consumeHandler(() => requestContext.snapshot())(message(headers));
    expect(seen?.causationId).toBeUndefined();
    expect(seen?.correlationId).toBeUndefined();
    expect(seen?.traceId).toBeUndefined();
  });

  it('names the run by the option, the routing key or the queue; link drops the trace; a generator makes ids', () => {
    const headers = { 'x-request-id': 'req-1', traceparent: `00-${traceId}-${spanId}-01` };
    const run = (options: Parameters<typeof consumeHandler>[1], msg: ConsumeMessageLike) =>
      consumeHandler(() => requestContext.snapshot(), options)(msg);
    expect(run({ name: 'welcome' }, message(headers))?.job?.name).toBe('welcome');
    expect(run({ queue: 'q' }, message(headers, { routingKey: '' }))?.job?.name).toBe('q');
    expect(run(undefined, message(headers, { routingKey: '' }))?.job?.name).toBe('message');
    const linked = run({ link: true, generateRequestId: () => 'run-1' }, message(headers));
    expect(linked).toMatchObject({ requestId: 'run-1', causationId: 'req-1' });
    expect(linked?.traceId).toBeUndefined();
  });

  it("passes the handler's result, promise and errors through; null reaches it outside any scope", async () => {
    const boom = new Error('handler failed');
    expect(() =>
      consumeHandler(() => {
        throw boom;
      })(message({})),
    ).toThrow(boom);
    await expect(consumeHandler(() => Promise.reject(boom))(message({}))).rejects.toBe(boom);
    expect(consumeHandler(() => requestContext.active)(null)).toBe(false);
  });

  it('refuses a handler that is no function and bad options', () => {
    expect(() => consumeHandler('handler' as never)).toThrow(AmbientError);
    expect(() => consumeHandler(() => undefined, { queeu: 'q' } as never)).toThrow(
      expect.objectContaining({ code: 'ERR_AMBIENT_AMQP_INVALID_OPTION' }),
    );
  });
});

// messageHeaders, messageHandler and subscriptionCallback on the NATS clients' own header objects (nats 2 and
// @nats-io/transport-node 3), encoded and decoded by the clients' own codec as the wire carries them. The real
// server, across processes: test/smoke/publish-to-consumer.test.mjs.
import { requestContext } from '@ambient/core';
import { contextCarrier } from '@ambient/correlation';
import { messageHandler, messageHeaders, subscriptionCallback, type NatsMessageLike } from '@ambient/nats-context';
import * as nats2 from 'nats';
import * as nats3 from '@nats-io/transport-node';

const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const spanId = '00f067aa0ba902b7';
const uuidv7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe.each([
  ['nats 2', nats2],
  ['@nats-io/transport-node 3', nats3],
] as const)('%s', (_, client) => {
  /** The headers as a receiver decodes them from the wire. */
  const received = (headers: nats2.MsgHdrs | nats3.MsgHdrs) =>
    client.MsgHdrsImpl.decode((headers as nats2.MsgHdrsImpl | nats3.MsgHdrsImpl).encode());
  const message = (headers?: nats2.MsgHdrs | nats3.MsgHdrs, extra: object = {}): NatsMessageLike => ({
    subject: 'orders.created',
    headers: headers === undefined ? undefined : received(headers),
    ...extra,
  });
  const inRequest = <R>(fn: () => R) =>
    requestContext.run({ requestId: 'req-1', correlationId: 'chain', traceId, spanId, traceFlags: '01' }, fn);

  it('messageHeaders sets the scope on the headers given, leaving a header already set in any case', () => {
    const headers = client.headers();
    headers.set('X-Request-Id', 'set-by-caller');
    headers.set('x-tenant', 't1');
    expect(inRequest(() => messageHeaders(headers))).toBe(headers);
    expect(Object.fromEntries(received(headers))).toEqual({
      'X-Request-Id': ['set-by-caller'],
      'x-tenant': ['t1'],
      'x-correlation-id': ['chain'],
      traceparent: [`00-${traceId}-${spanId}-01`],
    });
    const outside = client.headers();
    expect([...received(messageHeaders(outside))]).toEqual([]);
  });

  it('a message runs in a fresh scope: new id, the publisher as causation, its chain and trace, the job', () => {
    const headers = inRequest(() => messageHeaders(client.headers()));
    headers.set('Nats-Msg-Id', 'order-7');
    const seen = requestContext.run({ requestId: 'enclosing' }, () =>
      messageHandler(() => requestContext.snapshot())(
        message(headers, { info: { stream: 'ORDERS', deliveryCount: 2 } }),
      ),
    );
    expect(seen).toMatchObject({
      causationId: 'req-1',
      correlationId: 'chain',
      traceId,
      spanId,
      job: { name: 'orders.created', id: 'order-7', system: 'nats', queue: 'ORDERS', attempt: 2 },
    });
    expect(seen?.requestId).toMatch(uuidv7);
  });

  it("reads the carrier's headers in any case, as Go's clients send them", () => {
    const headers = client.headers();
    headers.set('X-Request-Id', 'req-go');
    headers.set('Traceparent', `00-${traceId}-${spanId}-01`);
    const seen = messageHandler(() => requestContext.snapshot())(message(headers));
    expect(seen).toMatchObject({ causationId: 'req-go', correlationId: 'req-go', traceId });
  });

  it('no headers, garbage, and a header said twice give a fresh chain and keep nothing of them', () => {
    const garbage = client.headers();
    garbage.set('x-request-id', '<script>alert(1)</script>');
    garbage.set('traceparent', 'nonsense');
    garbage.set('x-correlation-id', 'a b');
    garbage.set('Nats-Msg-Id', 'id with spaces');
    const twice = client.headers();
    twice.append('x-request-id', 'one');
    twice.append('x-request-id', 'two');
    twice.set('x-correlation-id', 'first');
    twice.set('X-Correlation-Id', 'second');
    for (const headers of [undefined, garbage, twice]) {
      const seen = messageHandler(() => requestContext.snapshot())(message(headers));
      expect(seen?.requestId).toMatch(uuidv7);
      expect(seen).not.toHaveProperty('causationId');
      expect(seen).not.toHaveProperty('correlationId');
      expect(seen).not.toHaveProperty('traceId');
      expect(seen?.job).toEqual({ name: 'orders.created', system: 'nats' });
    }
  });
});

describe('messageHandler(handler, options)', () => {
  const carrier = requestContext.run({ requestId: 'req-1', traceId, spanId }, contextCarrier);
  const headers = Object.entries(carrier).map(([key, value]): [string, string[]] => [key, [value]]);
  const message = { subject: 'orders.created', headers };

  it('takes the name, queue, link and request id generator from the options', () => {
    const seen = messageHandler(() => requestContext.snapshot(), {
      name: 'create-order',
      queue: 'workers',
      link: true,
      generateRequestId: () => 'run-1',
    })(message);
    expect(seen).toMatchObject({
      requestId: 'run-1',
      causationId: 'req-1',
      job: { name: 'create-order', queue: 'workers' },
    });
    expect(seen).not.toHaveProperty('traceId');
  });

  it("passes the handler's result, promise and errors through", async () => {
    expect(messageHandler(() => 42)(message)).toBe(42);
    await expect(messageHandler(async () => requestContext.get('causationId'))(message)).resolves.toBe('req-1');
    const failure = new Error('handler failed');
    expect(() =>
      messageHandler(() => {
        throw failure;
      })(message),
    ).toThrow(failure);
  });

  it('a headers object or delivery info that throws, and odd fields, give a run all the same', () => {
    const hostile = {
      subject: '',
      headers: {
        [Symbol.iterator]() {
          throw new Error('broken headers');
        },
      },
      get info(): never {
        throw new Error('not a JetStream reply subject');
      },
    };
    const seen = messageHandler(() => requestContext.snapshot())(hostile);
    expect(seen?.requestId).toMatch(uuidv7);
    expect(seen?.job).toEqual({ name: 'message', system: 'nats' });
    expect(messageHandler((message) => message)(null as never)).toBeNull();
    const odd = {
      subject: 's',
      headers: [[42, ['x']] as never, ['x-request-id', [7]] as never],
      info: { deliveryCount: 0 },
    };
    expect(messageHandler(() => requestContext.snapshot())(odd)?.job).toEqual({ name: 's', system: 'nats' });
  });

  it('refuses a handler that is no function and bad options', () => {
    for (const [make, code] of [
      [() => messageHandler('handler' as never), 'ERR_AMBIENT_NATS_INVALID_ARGUMENT'],
      [() => messageHandler(() => 1, { name: '' }), 'ERR_AMBIENT_NATS_INVALID_OPTION'],
      [() => messageHandler(() => 1, { durable: true } as never), 'ERR_AMBIENT_NATS_INVALID_OPTION'],
      [() => subscriptionCallback(42 as never), 'ERR_AMBIENT_NATS_INVALID_ARGUMENT'],
      [() => subscriptionCallback(() => 1, { link: 'yes' } as never), 'ERR_AMBIENT_NATS_INVALID_OPTION'],
      [() => messageHeaders({} as never), 'ERR_AMBIENT_NATS_INVALID_ARGUMENT'],
      [() => messageHeaders(undefined as never), 'ERR_AMBIENT_NATS_INVALID_ARGUMENT'],
    ] as const) {
      expect(make).toThrow(expect.objectContaining({ code }));
    }
  });
});

describe('subscriptionCallback(handler, options)', () => {
  it('runs each message as messageHandler does; an error reaches the handler as it is, outside any scope', () => {
    const carrier = requestContext.run({ requestId: 'req-1' }, contextCarrier);
    const headers = Object.entries(carrier).map(([key, value]): [string, string[]] => [key, [value]]);
    const callback = subscriptionCallback((error: Error | null, message: NatsMessageLike) => ({
      error,
      subject: message?.subject,
      store: requestContext.snapshot(),
    }));
    const handled = callback(null, { subject: 'orders.created', headers });
    expect(handled.error).toBeNull();
    expect(handled.store).toMatchObject({ causationId: 'req-1', job: { name: 'orders.created', system: 'nats' } });
    const failure = new Error('permissions violation');
    const failed = requestContext.run({ requestId: 'enclosing' }, () => callback(failure, undefined as never));
    expect(failed.error).toBe(failure);
    expect(failed.store?.requestId).toBe('enclosing');
  });
});

// messageAttributes, messageAttributeNames and messageHandler with the real @aws-sdk/client-sqs: commands built
// and serialized by the SDK as it sends them, messages deserialized by the SDK from SQS's JSON wire format. The
// client's requestHandler (its HTTP layer) keeps the requests and answers from here; the real emulator, with
// sqs-consumer and publisher and consumer in separate processes: test/smoke/send-to-consumer.test.mjs.
import { Readable } from 'node:stream';
import {
  ReceiveMessageCommand,
  SQSClient,
  SendMessageBatchCommand,
  SendMessageCommand,
  type Message,
  type MessageAttributeValue,
} from '@aws-sdk/client-sqs';
import { AmbientError, Snapshot, requestContext, type RequestStore } from '@ambient/core';
import { messageAttributeNames, messageAttributes, messageHandler } from '@ambient/sqs-context';

// The SDK warns once per process on Node 20 that its 2027 releases will need Node 22: not this test's concern.
process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';

const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const spanId = '00f067aa0ba902b7';
const uuidv7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const queueUrl = 'http://127.0.0.1:9/000000000000/mail';
const request: Partial<RequestStore> = {
  requestId: 'req-1',
  correlationId: 'chain',
  traceId,
  spanId,
  traceFlags: '01',
};
const string = (value: string): MessageAttributeValue => ({ DataType: 'String', StringValue: value });
const own = (count: number) =>
  Object.fromEntries(Array.from({ length: count }, (_, n) => [`user.${n}`, string(`v${n}`)]));

afterEach(() => jest.restoreAllMocks());

/**
 * A real SQSClient whose HTTP layer is this function: each request's target and JSON body are kept, and a
 * ReceiveMessage is answered with `messages` as SQS writes them on the wire.
 */
function client(messages: unknown[] = []) {
  const sent: { target: string; body: Record<string, unknown> }[] = [];
  const sqs = new SQSClient({
    endpoint: 'http://127.0.0.1:9',
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
    requestHandler: {
      handle: async (httpRequest: { headers: Record<string, string>; body: string | Uint8Array }) => {
        const target = httpRequest.headers['x-amz-target']!.replace('AmazonSQS.', '');
        const text =
          typeof httpRequest.body === 'string' ? httpRequest.body : new TextDecoder().decode(httpRequest.body);
        const body = JSON.parse(text) as Record<string, unknown>;
        sent.push({ target, body });
        const answer =
          target === 'ReceiveMessage'
            ? { Messages: messages }
            : target === 'SendMessageBatch'
              ? { Successful: [], Failed: [] }
              : { MessageId: 'm-1' };
        return {
          response: {
            statusCode: 200,
            headers: { 'content-type': 'application/x-amz-json-1.0' },
            body: Readable.from([Buffer.from(JSON.stringify(answer))]),
          },
        };
      },
    },
    // The SDK checks the MD5 of each body it sends and receives; the answers here carry none.
    md5: false,
  });
  return { sqs, sent };
}

/** What ReceiveMessage gives back for a message sent with `attributes`, deserialized by the SDK itself. */
async function received(attributes: unknown, extra: Record<string, unknown> = {}): Promise<Message> {
  const wire = { MessageId: 'm-1', ReceiptHandle: 'rh-1', Body: '{}', MessageAttributes: attributes, ...extra };
  const { sqs } = client([wire]);
  const output = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MessageAttributeNames: ['All'] }));
  return output.Messages![0]!;
}

/** The warnings of this package emitted while `fn` ran. */
function warningsOf(fn: () => unknown): { code: unknown; message: string }[] {
  const emitWarning = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
  fn();
  const emitted = emitWarning.mock.calls.map(([warning, options]) => ({
    code: (options as { code?: unknown } | undefined)?.code,
    message: String(warning),
  }));
  emitWarning.mockRestore();
  return emitted.filter(({ code }) => String(code).startsWith('WARN_AMBIENT_SQS'));
}

describe('messageAttributes(attributes)', () => {
  it("adds the scope's ids as String attributes, keeps the attributes given, and the SDK sends them", async () => {
    const tenant = string('t1');
    const given = { tenant, 'x-request-id': string('set-by-caller') };
    const attributes = requestContext.run({ ...request, traceState: 'vendor=1' }, () => messageAttributes(given));
    expect(attributes).toEqual({
      tenant,
      'x-request-id': string('set-by-caller'),
      'x-correlation-id': string('chain'),
      traceparent: string(`00-${traceId}-${spanId}-01`),
      tracestate: string('vendor=1'),
    });
    expect(attributes.tenant).toBe(tenant);
    expect(given).toEqual({ tenant: string('t1'), 'x-request-id': string('set-by-caller') });
    const { sqs, sent } = client();
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: '{}', MessageAttributes: attributes }));
    expect(sent[0]).toEqual({
      target: 'SendMessage',
      body: { QueueUrl: queueUrl, MessageBody: '{}', MessageAttributes: attributes },
    });
  });

  it('gives each SendMessageBatch entry its own attributes', async () => {
    const entries = requestContext.run(request, () => [
      { Id: 'a', MessageBody: 'a', MessageAttributes: messageAttributes() },
      { Id: 'b', MessageBody: 'b', MessageAttributes: messageAttributes({ kind: string('b') }) },
    ]);
    expect(entries[0]!.MessageAttributes).not.toBe(entries[1]!.MessageAttributes);
    const { sqs, sent } = client();
    await sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
    const wire = sent[0]!.body['Entries'] as { MessageAttributes: Record<string, unknown> }[];
    expect(wire.map((entry) => Object.keys(entry.MessageAttributes))).toEqual([
      ['x-request-id', 'x-correlation-id', 'traceparent'],
      ['kind', 'x-request-id', 'x-correlation-id', 'traceparent'],
    ]);
    expect(wire[1]!.MessageAttributes['x-request-id']).toEqual(string('req-1'));
  });

  it('outside any scope returns a copy', () => {
    const given = { tenant: string('t1') };
    const attributes = messageAttributes(given);
    expect(attributes).toEqual(given);
    expect(attributes).not.toBe(given);
    expect(messageAttributes()).toEqual({});
  });

  it('keeps an attribute named __proto__ as an attribute', () => {
    const given = JSON.parse('{"__proto__": {"DataType": "String", "StringValue": "odd"}}') as Record<
      string,
      MessageAttributeValue
    >;
    const attributes = messageAttributes(given);
    expect(Object.keys(attributes)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(attributes)).toBe(Object.prototype);
  });

  describe("within SQS's limit of 10 attributes", () => {
    const scope = { ...request, traceState: 'vendor=1' };
    const send = (count: number, extra: Record<string, MessageAttributeValue> = {}) => {
      let attributes: Record<string, MessageAttributeValue> = {};
      const warned = warningsOf(() => {
        attributes = requestContext.run(scope, () => messageAttributes({ ...own(count), ...extra }));
      });
      return { keys: Object.keys(attributes), warned, attributes };
    };

    it('6 of the user: all 4 ids fit, no warning', () => {
      const { keys, warned } = send(6);
      expect(keys).toHaveLength(10);
      expect(warned).toEqual([]);
    });

    it('8 of the user: the chain ids fit, the trace is left out and named in a warning', () => {
      const { keys, warned, attributes } = send(8);
      expect(keys).toEqual([...Object.keys(own(8)), 'x-request-id', 'x-correlation-id']);
      expect(attributes).toMatchObject(own(8));
      expect(warned).toEqual([{ code: 'WARN_AMBIENT_SQS_ATTRIBUTES_FULL', message: expect.any(String) }]);
      expect(warned[0]!.message).toMatch(/traceparent, tracestate/);
      expect(warned[0]!.message).not.toMatch(/x-request-id,/);
    });

    it('warns once per list of ids left out, not once per message', () => {
      expect(send(8).warned).toEqual([]);
      const ten = send(10);
      expect(ten.keys).toEqual(Object.keys(own(10)));
      expect(ten.warned.map(({ message }) => message)).toEqual([
        expect.stringMatching(/x-request-id, x-correlation-id, traceparent, tracestate/),
      ]);
      expect(send(10).warned).toEqual([]);
      expect(send(7).warned).toHaveLength(1);
    });

    it('never drops an attribute of the user, even past the limit', () => {
      const { keys, attributes } = send(11);
      expect(keys).toEqual(Object.keys(own(11)));
      expect(attributes).toEqual(own(11));
    });

    it('an id the user set is theirs: it takes no room of ours and is not reported', () => {
      const { keys, warned, attributes } = send(8, { traceparent: string('user-trace') });
      expect(keys).toEqual([...Object.keys(own(8)), 'traceparent', 'x-request-id']);
      expect(attributes['traceparent']).toEqual(string('user-trace'));
      expect(warned.map(({ message }) => message)).toEqual([expect.stringMatching(/x-correlation-id, tracestate/)]);
    });
  });

  it('refuses attributes that are no object, and attribute values that are no message attribute', () => {
    for (const bad of ['tenant', 42, null, [string('a')]]) {
      expect(() => messageAttributes(bad as never)).toThrow(
        expect.objectContaining({ code: 'ERR_AMBIENT_SQS_INVALID_ARGUMENT' }),
      );
    }
    for (const bad of [{ tenant: 't1' }, { tenant: null }, { tenant: { StringValue: 't1' } }]) {
      expect(() => requestContext.run(request, () => messageAttributes(bad as never))).toThrow(
        expect.objectContaining({ code: 'ERR_AMBIENT_SQS_INVALID_OPTION' }),
      );
    }
  });
});

describe('messageAttributeNames(names)', () => {
  const ours = ['x-request-id', 'x-correlation-id', 'traceparent', 'tracestate'];

  it("the carrier's names, after the names given, each once; the SDK asks for them", async () => {
    expect(messageAttributeNames()).toEqual(ours);
    const names = messageAttributeNames(['tenant', 'traceparent', 'tenant', 'user.*']);
    expect(names).toEqual(['tenant', 'traceparent', 'user.*', 'x-request-id', 'x-correlation-id', 'tracestate']);
    const { sqs, sent } = client();
    await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MessageAttributeNames: names }));
    expect(sent[0]!.body['MessageAttributeNames']).toEqual(names);
  });

  it('returns names that ask for all as they are, and a new array every time', () => {
    const all = ['All'];
    expect(messageAttributeNames(all)).toEqual(['All']);
    expect(messageAttributeNames(all)).not.toBe(all);
    expect(messageAttributeNames(['tenant', '.*'])).toEqual(['tenant', '.*']);
    messageAttributeNames().push('changed');
    expect(messageAttributeNames()).toEqual(ours);
  });

  it('refuses names that are no array of strings', () => {
    for (const bad of ['All', null, [42], { 0: 'a' }]) {
      expect(() => messageAttributeNames(bad as never)).toThrow(
        expect.objectContaining({ code: 'ERR_AMBIENT_SQS_INVALID_ARGUMENT' }),
      );
    }
  });
});

describe('messageHandler(handler, options)', () => {
  const snapshot = () => requestContext.snapshot();
  const sentIn = (scope: Partial<RequestStore>) => requestContext.run(scope, () => messageAttributes());

  it.each([
    ['no context', (fn: () => unknown) => fn()],
    ['inside another request', (fn: () => unknown) => requestContext.run({ requestId: 'enclosing' }, fn)],
    [
      'inside a Snapshot#run',
      (fn: () => unknown) => requestContext.run({ requestId: 'enclosing' }, () => new Snapshot()).run(fn),
    ],
  ])('from %s: a fresh run with the sender as causation, its chain, trace and the job', async (_state, enter) => {
    const message = await received(sentIn({ ...request, traceState: 'vendor=1' }), {
      Attributes: { ApproximateReceiveCount: '2' },
    });
    const seen = enter(() => messageHandler(snapshot, { queue: 'mail' })(message)) as Partial<RequestStore>;
    expect(seen).toMatchObject({
      causationId: 'req-1',
      correlationId: 'chain',
      traceId,
      spanId,
      traceState: 'vendor=1',
      job: { name: 'mail', id: 'm-1', system: 'sqs', queue: 'mail', attempt: 2 },
    });
    expect(seen.requestId).toMatch(uuidv7);
    expect(requestContext.get('requestId')).toBeUndefined();
  });

  it('reads String and String.<custom> attributes, and no others', async () => {
    const message = await received({
      'x-request-id': { DataType: 'String.uuid', StringValue: 'req-1' },
      'x-correlation-id': { DataType: 'Number', StringValue: '12345678' },
      traceparent: { DataType: 'Binary', BinaryValue: Buffer.from(`00-${traceId}-${spanId}-01`).toString('base64') },
      tracestate: { DataType: 'String', StringListValues: ['vendor=1'] },
    });
    const seen = messageHandler(snapshot)(message);
    expect(seen).toMatchObject({ causationId: 'req-1', correlationId: 'req-1' });
    expect(seen?.traceId).toBeUndefined();
  });

  it.each([
    ['1', 1],
    ['12', 12],
    ['0', undefined],
    ['-1', undefined],
    ['1.5', undefined],
    ['1e3', undefined],
    [' 2', undefined],
    ['9999999999', undefined],
    [3, undefined],
  ])('ApproximateReceiveCount %p gives attempt %p', (count, attempt) => {
    const message = { MessageId: 'm-1', Attributes: { ApproximateReceiveCount: count } } as Message;
    expect(messageHandler(() => requestContext.get('job')?.attempt)(message)).toBe(attempt);
  });

  const throwing = () => {
    throw new Error('hostile getter');
  };
  const hostile = '<script>alert(1)</script>';
  it.each([
    ['no attributes', {}],
    ['empty attributes', { MessageAttributes: {} }],
    [
      'garbage values',
      {
        MessageAttributes: {
          'x-request-id': string(hostile),
          'x-correlation-id': string('a b'),
          traceparent: string('nonsense'),
          tracestate: string('vendor=1'),
        },
      },
    ],
    ['ids too long', { MessageAttributes: { 'x-request-id': string('x'.repeat(10_000)) } }],
    ['attributes that are an array', { MessageAttributes: [string('req-1')] }],
    ['attributes that are a string', { MessageAttributes: 'x-request-id=req-1' }],
    ['values that are strings', { MessageAttributes: { 'x-request-id': 'req-1' } }],
    ['values of no type', { MessageAttributes: { 'x-request-id': { StringValue: 'req-1' } } }],
    [
      'a StringValue that is no string',
      { MessageAttributes: { 'x-request-id': { DataType: 'String', StringValue: 7 } } },
    ],
    ['an inherited attribute', { MessageAttributes: Object.create({ 'x-request-id': string('req-1') }) as object }],
    [
      'a getter that throws on the attributes',
      Object.defineProperty({}, 'MessageAttributes', { get: throwing, enumerable: true }),
    ],
    [
      'a getter that throws on an attribute',
      { MessageAttributes: Object.defineProperty({}, 'x-request-id', { get: throwing, enumerable: true }) },
    ],
    [
      'a getter that throws on its value',
      {
        MessageAttributes: {
          'x-request-id': Object.defineProperty({ DataType: 'String' }, 'StringValue', { get: throwing }),
        },
      },
    ],
    [
      'a proxy that throws',
      { MessageAttributes: new Proxy({}, { getOwnPropertyDescriptor: throwing, has: throwing, get: throwing }) },
    ],
    [
      'getters that throw on the id and the attributes',
      Object.defineProperties({}, { MessageId: { get: throwing }, Attributes: { get: throwing } }),
    ],
  ])('a message with %s starts a fresh chain, and nothing of it is kept', (_what, message) => {
    const seen = messageHandler(snapshot, { queue: 'mail' })(message as Message);
    expect(seen?.requestId).toMatch(uuidv7);
    expect(seen?.causationId).toBeUndefined();
    expect(seen?.correlationId).toBeUndefined();
    expect(seen?.traceId).toBeUndefined();
    expect(seen?.traceState).toBeUndefined();
    expect(JSON.stringify(seen)).not.toMatch(/script|nonsense|a b|vendor|req-1|xxxx/);
  });

  it('keeps a MessageId only when it passes the request-id rule', () => {
    const message = { MessageId: hostile, MessageAttributes: sentIn(request) };
    const seen = messageHandler(snapshot)(message);
    expect(seen?.job).toEqual({ name: 'message', system: 'sqs' });
    expect(seen?.causationId).toBe('req-1');
  });

  it('names the run by the option, else the queue, else "message"; link drops the trace; a generator makes ids', () => {
    const message = { MessageId: 'm-1', MessageAttributes: sentIn(request) };
    const run = (options?: Parameters<typeof messageHandler>[1]) => messageHandler(snapshot, options)(message);
    expect(run({ name: 'welcome', queue: 'mail' })?.job).toEqual({
      name: 'welcome',
      id: 'm-1',
      system: 'sqs',
      queue: 'mail',
    });
    expect(run({ queue: 'mail' })?.job?.name).toBe('mail');
    expect(run({ queue: '' })?.job?.name).toBe('message');
    expect(run()?.job?.name).toBe('message');
    const linked = run({ link: true, generateRequestId: () => 'run-1' });
    expect(linked).toMatchObject({ requestId: 'run-1', causationId: 'req-1', correlationId: 'chain' });
    expect(linked?.traceId).toBeUndefined();
  });

  it("passes the handler's result, promise and errors through unchanged; a non-message reaches it outside any scope", async () => {
    const message = { MessageId: 'm-1', MessageAttributes: sentIn(request) };
    expect(messageHandler((m: typeof message) => m)(message)).toBe(message);
    const acked = messageHandler(async (m: typeof message) => {
      await new Promise((resolve) => setImmediate(resolve));
      return requestContext.get('causationId') === 'req-1' ? m : undefined;
    });
    await expect(acked(message)).resolves.toBe(message);
    const boom = new Error('handler failed');
    expect(() =>
      messageHandler(() => {
        throw boom;
      })(message),
    ).toThrow(boom);
    await expect(messageHandler(() => Promise.reject(boom))(message)).rejects.toBe(boom);
    expect(messageHandler(() => requestContext.active)(null as never)).toBe(false);
    expect(messageHandler(() => requestContext.active)(undefined as never)).toBe(false);
  });

  it('refuses a handler that is no function and bad options', () => {
    expect(() => messageHandler('handler' as never)).toThrow(AmbientError);
    expect(() => messageHandler('handler' as never)).toThrow(
      expect.objectContaining({ code: 'ERR_AMBIENT_SQS_INVALID_ARGUMENT' }),
    );
    for (const options of [{ queeu: 'mail' }, { queue: 42 }, { name: '' }, { link: 'yes' }, 'mail']) {
      expect(() => messageHandler(() => undefined, options as never)).toThrow(
        expect.objectContaining({ code: 'ERR_AMBIENT_SQS_INVALID_OPTION' }),
      );
    }
  });
});

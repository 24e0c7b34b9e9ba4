// socketIoContext on a real socket.io 4 server on 127.0.0.1 with socket.io-client: the socket's scope from the
// handshake, a scope of its own for each event through onAny, socket.use middlewares, handlers and both kinds of
// acknowledgement, disconnect back in the socket's scope.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { requestContext, type RequestStore } from '@ambient/core';
import { runInRoot } from '@ambient/core';
import { socketIoContext } from '@ambient/ws-context';
import { Server, type Socket } from 'socket.io';
import { io as connectClient, type Socket as ClientSocket } from 'socket.io-client';
import { snapshot, spanId, traceId, uuidv7 } from './helpers/scope.js';

let io: Server;
let url: string;
const clients: ClientSocket[] = [];

beforeEach(async () => {
  const http = createServer();
  io = new Server(http);
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
});

afterEach(async () => {
  for (const client of clients.splice(0)) client.disconnect();
  await io.close();
});

function connect(headers: Record<string, string>, transports: Array<'websocket' | 'polling'> = ['websocket']) {
  const client = connectClient(url, { transports, extraHeaders: headers, forceNew: true });
  clients.push(client);
  return client;
}

describe('socketIoContext', () => {
  it('events run in scopes of their own through onAny, socket.use, handlers and the ack they send', async () => {
    io.use(socketIoContext());
    const seen: Record<string, Array<RequestStore | undefined>> = { any: [], use: [], handler: [], afterAck: [] };
    let connected: RequestStore | undefined;
    const disconnected = new Promise<RequestStore | undefined>((resolve) =>
      io.on('connection', (socket: Socket) => {
        connected = snapshot();
        requestContext.set('userId', 'u-1');
        socket.onAny(() => seen.any!.push(snapshot()));
        socket.use((_event, next) => {
          seen.use!.push(snapshot());
          requestContext.set('checked', true);
          setTimeout(next, Math.random() * 5);
        });
        socket.on('order', async (id: number, ack: (reply: unknown) => void) => {
          seen.handler!.push(snapshot());
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
          ack({ id, requestId: requestContext.get('requestId') });
          seen.afterAck!.push(snapshot());
        });
        socket.on('disconnect', () => resolve(snapshot()));
      }),
    );
    const client = connect({
      'x-request-id': 'conn-1',
      'x-correlation-id': 'chain-1',
      traceparent: `00-${traceId}-${spanId}-01`,
    });
    const replies = await Promise.all([1, 2, 3].map((id) => client.emitWithAck('order', id)));
    expect(connected).toEqual({ requestId: 'conn-1', correlationId: 'chain-1', traceId, spanId, traceFlags: '01' });
    for (const [where, stores] of Object.entries(seen)) {
      expect([where, stores.length]).toEqual([where, 3]);
      for (const store of stores) {
        expect(store).toMatchObject({
          requestId: expect.stringMatching(uuidv7),
          causationId: 'conn-1',
          correlationId: 'chain-1',
          traceId,
          spanId,
          userId: 'u-1',
          job: { name: 'order', system: 'socket.io' },
        });
      }
    }
    // One event, one scope: what onAny, the middleware and the handler saw, and what the ack carried.
    for (const reply of replies as Array<{ id: number; requestId: string }>) {
      const index = seen.handler!.findIndex((store) => store?.requestId === reply.requestId);
      expect(index).toBeGreaterThanOrEqual(0);
      expect(seen.handler![index]).toMatchObject({ checked: true });
    }
    expect(new Set(seen.handler!.map((store) => store?.requestId)).size).toBe(3);
    expect(new Set(seen.any!.map((store) => store?.requestId))).toEqual(
      new Set(seen.handler!.map((store) => store?.requestId)),
    );
    client.disconnect();
    expect(await disconnected).toEqual({
      requestId: 'conn-1',
      correlationId: 'chain-1',
      traceId,
      spanId,
      traceFlags: '01',
      userId: 'u-1',
    });
  });

  it('an ack the server receives runs in the scope that emitted: an event’s, the connection’s, a broadcast’s', async () => {
    io.use(socketIoContext());
    const acked: Array<[string, RequestStore | undefined]> = [];
    let eventId: string | undefined;
    const done = new Promise<void>((resolve) =>
      io.on('connection', (socket: Socket) => {
        socket.emit('ask', 'from connection', () => acked.push(['connection', snapshot()]));
        socket.on('go', () => {
          eventId = requestContext.get('requestId');
          socket.emit('ask', 'from event', () => acked.push(['event', snapshot()]));
          requestContext.run({ requestId: 'broadcaster' }, () =>
            io.timeout(5000).emit('ask', 'broadcast', () => {
              acked.push(['broadcast', snapshot()]);
              resolve();
            }),
          );
        });
      }),
    );
    const client = connect({ 'x-request-id': 'conn-2' });
    // The client answers each ask from the root, so that nothing of its own flow is in the way.
    client.on('ask', (_text: string, ack: () => void) => runInRoot(() => setTimeout(ack, Math.random() * 5)));
    client.emit('go');
    await done;
    await new Promise((resolve) => setTimeout(resolve, 20));
    const byName = Object.fromEntries(acked);
    expect(byName['connection']?.requestId).toBe('conn-2');
    expect(byName['event']?.requestId).toBe(eventId);
    expect(byName['event']?.causationId).toBe('conn-2');
    expect(byName['broadcast']?.requestId).toBe('broadcaster');
  });

  it('not first: middlewares before it run outside, after it in the socket scope; polling handshakes too', async () => {
    const before: Array<RequestStore | undefined> = [];
    const after: Array<RequestStore | undefined> = [];
    io.use((_socket, next) => {
      before.push(snapshot());
      setImmediate(next);
    });
    io.use(socketIoContext());
    // A second time on a namespace: the socket keeps its one scope.
    io.of('/').use(socketIoContext({ requestIdHeader: 'x-other' }));
    io.use((_socket, next) => {
      after.push(snapshot());
      setTimeout(next, 1);
    });
    const connected = new Promise<RequestStore | undefined>((resolve) =>
      io.on('connection', () => resolve(snapshot())),
    );
    connect({ 'x-request-id': 'conn-3' }, ['polling']);
    expect((await connected)?.requestId).toBe('conn-3');
    expect(before).toEqual([undefined]);
    expect(after).toEqual([{ requestId: 'conn-3' }]);
  });

  it('a socket middleware that calls next from another context still hands the event to its own scope', async () => {
    io.use(socketIoContext());
    const seen = new Promise<[string | undefined, string | undefined]>((resolve) =>
      io.on('connection', (socket: Socket) => {
        let inMiddleware: string | undefined;
        socket.use((_event, next) => {
          inMiddleware = requestContext.get('requestId');
          requestContext.run({ requestId: 'a pool' }, () => setImmediate(next));
        });
        socket.on('ping!', () => resolve([inMiddleware, requestContext.get('requestId')]));
      }),
    );
    connect({}).emit('ping!');
    const [inMiddleware, inHandler] = await seen;
    expect(inMiddleware).toMatch(uuidv7);
    expect(inHandler).toBe(inMiddleware);
  });

  it('an event name that is no printable text is not written as the job name', async () => {
    io.use(socketIoContext());
    const names: unknown[] = [];
    const done = new Promise<void>((resolve) =>
      io.on('connection', (socket: Socket) =>
        socket.onAny(() => names.push(requestContext.get('job')?.name) === 2 && resolve()),
      ),
    );
    const client = connect({});
    client.emit('line\nbreak');
    client.emit('x'.repeat(300));
    await done;
    expect(names).toEqual(['event', 'event']);
  });

  it('refuses options that do not apply, bad options, and what is not a socket.io Socket, each by code', () => {
    expect(() => socketIoContext({ echoRequestId: true } as never)).toThrow(
      expect.objectContaining({ code: 'ERR_AMBIENT_WS_INVALID_OPTION' }),
    );
    expect(() => socketIoContext({ propagation: { allowedOrigins: [] } } as never)).toThrow(
      expect.objectContaining({ code: 'ERR_AMBIENT_WS_INVALID_OPTION' }),
    );
    expect(() => socketIoContext({ traceContext: 'yes' } as never)).toThrow(
      expect.objectContaining({ code: 'ERR_AMBIENT_HTTP_INVALID_OPTION' }),
    );
    const middleware = socketIoContext();
    for (const socket of [undefined, {}, { request: { rawHeaders: [] } }]) {
      expect(() => middleware(socket as never, () => {})).toThrow(
        expect.objectContaining({ code: 'ERR_AMBIENT_WS_INVALID_ARGUMENT' }),
      );
    }
  });
});

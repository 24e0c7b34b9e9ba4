// scopeWebSocketServer on real `ws` 8 servers on 127.0.0.1: the connection's scope from the upgrade request, a
// scope of its own for every message, the id echoed on the 101 response, bad options and arguments refused.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { requestContext, type RequestStore } from '@ambient/core';
import { scopeWebSocketServer } from '@ambient/ws-context';
import { WebSocket, WebSocketServer } from 'ws';
import { snapshot, spanId, traceId, uuidv7 } from './helpers/scope.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** An HTTP server on 127.0.0.1 upgrading to `wss` by hand (`noServer`), as frameworks do. */
async function listen(wss: WebSocketServer): Promise<string> {
  const server: Server = createServer();
  server.on('upgrade', (request: IncomingMessage, socket, head) =>
    wss.handleUpgrade(request, socket, head, (client) => wss.emit('connection', client, request)),
  );
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push(async () => {
    for (const client of wss.clients) client.terminate();
    wss.close();
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  });
  return `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function connect(url: string, headers: Record<string, string> = {}) {
  const client = new WebSocket(url, { headers });
  const response = new Promise<IncomingMessage>((resolve) => client.once('upgrade', resolve));
  await once(client, 'open');
  closers.push(async () => {
    if (client.readyState === WebSocket.CLOSED) return;
    client.close();
    await once(client, 'close');
  });
  return { client, response: await response };
}

describe('scopeWebSocketServer', () => {
  it('connection listeners run in the connection scope: the upgrade request’s checked ids and trace', async () => {
    const wss = scopeWebSocketServer(new WebSocketServer({ noServer: true }));
    const seen = new Promise<RequestStore | undefined>((resolve) => wss.on('connection', () => resolve(snapshot())));
    const url = await listen(wss);
    const { response } = await connect(url, {
      'x-request-id': 'conn-1',
      'x-correlation-id': 'chain-1',
      traceparent: `00-${traceId}-${spanId}-01`,
    });
    expect(await seen).toEqual({
      requestId: 'conn-1',
      correlationId: 'chain-1',
      traceId,
      spanId,
      traceFlags: '01',
    });
    expect(response.headers['x-request-id']).toBe('conn-1');
  });

  it('each message runs in a scope of its own: a fresh id, the connection as causation, its chain and trace', async () => {
    const wss = scopeWebSocketServer(new WebSocketServer({ noServer: true }));
    const seen: Array<RequestStore | undefined> = [];
    let closed: RequestStore | undefined;
    wss.on('connection', (socket) => {
      requestContext.set('userId', 'u-1');
      socket.on('message', (data: Buffer) => {
        requestContext.set('handled', data.toString());
        setTimeout(() => {
          seen.push(snapshot());
          socket.send(data.toString());
        }, Math.random() * 5);
      });
      socket.on('close', () => (closed = snapshot()));
    });
    const url = await listen(wss);
    const { client } = await connect(url, { 'x-request-id': 'conn-2', traceparent: `00-${traceId}-${spanId}-01` });
    const echoed: string[] = [];
    const all = new Promise<void>((resolve) =>
      client.on('message', (data: Buffer) => echoed.push(data.toString()) === 3 && resolve()),
    );
    for (const text of ['a', 'b', 'c']) client.send(text);
    await all;
    expect(seen).toHaveLength(3);
    const ids = new Set(seen.map((store) => store?.requestId));
    expect(ids.size).toBe(3);
    for (const store of seen) {
      expect(store).toEqual({
        requestId: expect.stringMatching(uuidv7),
        causationId: 'conn-2',
        correlationId: 'conn-2',
        traceId,
        spanId,
        traceFlags: '01',
        userId: 'u-1',
        handled: expect.any(String),
        job: { name: 'message', system: 'ws' },
      });
    }
    client.close();
    await once(client, 'close');
    await new Promise((resolve) => setImmediate(resolve));
    // What a message set stayed in its own scope; close runs in the connection's.
    expect(closed).toEqual({ requestId: 'conn-2', traceId, spanId, traceFlags: '01', userId: 'u-1' });
  });

  it('once, addEventListener and a server of its own (the port option) get the message scope too', async () => {
    const wss = scopeWebSocketServer(new WebSocketServer({ port: 0, host: '127.0.0.1' }));
    await once(wss, 'listening');
    closers.push(async () => {
      for (const client of wss.clients) client.terminate();
      await new Promise((resolve) => wss.close(resolve));
    });
    const seen = new Promise<Array<RequestStore | undefined>>((resolve) =>
      wss.on('connection', (socket) => {
        const stores: Array<RequestStore | undefined> = [];
        socket.once('message', () => stores.push(snapshot()));
        socket.addEventListener('message', () => stores.push(snapshot()) === 2 && resolve(stores));
      }),
    );
    const { client, response } = await connect(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`, {
      'x-request-id': 'has spaces', // fails the request-id rule: a fresh id
    });
    client.send('x');
    const [first, second] = await seen;
    const connectionId = response.headers['x-request-id'];
    expect(connectionId).toMatch(uuidv7);
    expect(first?.causationId).toBe(connectionId);
    expect(first?.requestId).toBe(second?.requestId);
    expect(first?.requestId).not.toBe(connectionId);
  });

  it('an asynchronous verifyClient: verifyClient and the connection run in the connection scope', async () => {
    const verified: Array<RequestStore | undefined> = [];
    const wss = scopeWebSocketServer(
      new WebSocketServer({
        noServer: true,
        verifyClient: (_info, done) => {
          verified.push(snapshot());
          // Completed from a context of its own: the root's.
          setImmediate(() => requestContext.run({ requestId: 'elsewhere' }, () => done(true)));
        },
      }),
      { requestIdHeader: 'x-trace', echoRequestId: 'x-connection-id', correlationId: false },
    );
    const seen = new Promise<RequestStore | undefined>((resolve) => wss.on('connection', () => resolve(snapshot())));
    const url = await listen(wss);
    const { response } = await connect(url, { 'x-trace': 'conn-3', 'x-correlation-id': 'ignored' });
    expect(verified).toEqual([{ requestId: 'conn-3' }]);
    expect(await seen).toEqual({ requestId: 'conn-3' });
    expect(response.headers['x-connection-id']).toBe('conn-3');
  });

  it('echoRequestId false, and a generated id that is not a header value, echo nothing', async () => {
    const quiet = scopeWebSocketServer(new WebSocketServer({ noServer: true }), { echoRequestId: false });
    const odd = scopeWebSocketServer(new WebSocketServer({ noServer: true }), { generateRequestId: () => 'a b' });
    for (const wss of [quiet, odd]) {
      const seen = new Promise<RequestStore | undefined>((resolve) => wss.on('connection', () => resolve(snapshot())));
      const { response } = await connect(await listen(wss));
      expect(response.headers['x-request-id']).toBeUndefined();
      expect((await seen)?.requestId).toBeDefined();
    }
  });

  it('a request without raw headers (a hand-made upgrade) still gets a scope', async () => {
    const wss = scopeWebSocketServer(new WebSocketServer({ noServer: true }));
    const server = createServer();
    server.on('upgrade', (request: IncomingMessage, socket, head) => {
      const bare = Object.assign(Object.create(request) as IncomingMessage, { rawHeaders: undefined });
      Object.defineProperty(bare, 'headers', { value: request.headers });
      wss.handleUpgrade(bare, socket, head, (client) => wss.emit('connection', client, bare));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    closers.push(async () => {
      for (const client of wss.clients) client.terminate();
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    });
    const seen = new Promise<RequestStore | undefined>((resolve) => wss.on('connection', () => resolve(snapshot())));
    await connect(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`, { 'x-request-id': 'not-read' });
    expect((await seen)?.requestId).toMatch(uuidv7);
  });

  it('with permessage-deflate, each send’s callback runs in its sender’s scope, not the first sender’s', async () => {
    // zlib calls back in the context its stream was made in: the first compressed send's, without Ambient's care.
    const wss = scopeWebSocketServer(new WebSocketServer({ noServer: true, perMessageDeflate: { threshold: 0 } }));
    const results: Array<[string | undefined, string | undefined]> = [];
    wss.on('connection', (socket) => {
      socket.send('hello');
      socket.on('message', (data: Buffer) => {
        const sender = requestContext.get('requestId');
        socket.send(`re ${data.toString()}`, { binary: false }, () =>
          results.push([sender, requestContext.get('requestId')]),
        );
      });
    });
    const client = new WebSocket(await listen(wss), { perMessageDeflate: true });
    closers.push(async () => {
      client.close();
      await once(client, 'close');
    });
    const replies: string[] = [];
    const done = new Promise<void>((resolve) =>
      client.on('message', (data: Buffer) => replies.push(data.toString()) === 4 && resolve()),
    );
    await once(client, 'open');
    for (const text of ['a', 'b', 'c']) {
      client.send(text);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await done;
    expect(replies).toEqual(['hello', 're a', 're b', 're c']);
    expect(results).toHaveLength(3);
    for (const [sender, inCallback] of results) expect(inCallback).toBe(sender);
    expect(new Set(results.map(([sender]) => sender)).size).toBe(3);
  });

  it('a listener that throws: the error reaches the emitter as it would without Ambient, the scope is restored', async () => {
    const wss = scopeWebSocketServer(new WebSocketServer({ noServer: true }));
    const thrown = new Error('handler failed');
    const seen = new Promise<unknown[]>((resolve) =>
      wss.on('connection', (socket) => {
        const inside: unknown[] = [];
        socket.on('message', () => {
          inside.push(snapshot()?.causationId);
          throw thrown;
        });
        // ws emits a message from its receiver, where an error thrown by a listener goes up to the process.
        try {
          socket.emit('message', Buffer.from('x'), false);
        } catch (error) {
          inside.push(error, snapshot()?.requestId);
        }
        resolve(inside);
      }),
    );
    await connect(await listen(wss), { 'x-request-id': 'conn-4' });
    expect(await seen).toEqual(['conn-4', thrown, 'conn-4']);
  });

  it('refuses what is not a WebSocketServer, a server scoped twice, and bad options, each by code', () => {
    for (const server of [undefined, null, {}, { handleUpgrade() {} }, 'wss']) {
      expect(() => scopeWebSocketServer(server as never)).toThrow(
        expect.objectContaining({ code: 'ERR_AMBIENT_WS_INVALID_ARGUMENT' }),
      );
    }
    const wss = new WebSocketServer({ noServer: true });
    scopeWebSocketServer(wss);
    expect(() => scopeWebSocketServer(wss)).toThrow(
      expect.objectContaining({ code: 'ERR_AMBIENT_WS_INVALID_ARGUMENT' }),
    );
    const fresh = () => new WebSocketServer({ noServer: true });
    expect(() => scopeWebSocketServer(fresh(), { propagation: { allowedOrigins: [] } } as never)).toThrow(
      expect.objectContaining({ code: 'ERR_AMBIENT_WS_INVALID_OPTION' }),
    );
    // The HTTP rules are @ambient/http-context's, checked by it.
    expect(() => scopeWebSocketServer(fresh(), { requestIdHeader: 'bad header' })).toThrow(
      expect.objectContaining({ code: 'ERR_AMBIENT_HTTP_INVALID_OPTION' }),
    );
    expect(() => scopeWebSocketServer(fresh(), { echo: true } as never)).toThrow(
      expect.objectContaining({ code: 'ERR_AMBIENT_HTTP_INVALID_OPTION' }),
    );
  });
});

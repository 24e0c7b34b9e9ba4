// With @ambient/diagnostics on, a connection is followed as a request is (open while connected, its scope
// watched after close), and once every client has gone and the collector has run, no connection scope and no
// message scope is left: diagnostics' retention watch empties, and so does a FinalizationRegistry over the
// message scopes. Run with node --expose-gc.
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { requestContext } from '@ambient/core';
import { scopeObject } from '@ambient/core/internal';
import { diagnosticsReport, enableDiagnostics, type DiagnosticReport } from '@ambient/diagnostics';
import { scopeWebSocketServer, socketIoContext } from '@ambient/ws-context';
import { Server } from 'socket.io';
import { io as connectClient } from 'socket.io-client';
import { WebSocket, WebSocketServer } from 'ws';

const gc = globalThis.gc;
// Skipped only without --expose-gc, where nothing can be collected on demand; npm test always passes the flag.
const withGc = gc === undefined ? it.skip : it;

/** Waits until the server has seen every connection close (bounded: a failure, never a hang). */
async function allClosed(): Promise<void> {
  for (let round = 0; round < 500 && diagnosticsReport().openRequests > 0; round++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Collects until `done()` holds, or gives up after 50 rounds: finalizers run as tasks after a collection. */
async function collectUntil(done: () => boolean): Promise<void> {
  for (let round = 0; round < 50 && !done(); round++) {
    gc!();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('after disconnect nothing is retained', () => {
  const reports: DiagnosticReport[] = [];
  let off: () => void;
  beforeEach(() => {
    const diagnostics = enableDiagnostics({
      warnings: false,
      retainedSampleEvery: 1,
      onReport: (report) => reports.push(report),
    });
    off = () => diagnostics.disable();
  });
  afterEach(() => off());

  withGc('ws: connections are followed while open; their scopes and their messages’ scopes are collected', async () => {
    const live = new Set<number>();
    let next = 0;
    const finalized = new FinalizationRegistry<number>((id) => live.delete(id));
    const messages = new Set<number>();
    const watch = (message = false) => {
      const id = next++;
      live.add(id);
      if (message) messages.add(id);
      finalized.register(scopeObject(requestContext)!, id);
    };
    const http = createServer();
    const wss = scopeWebSocketServer(new WebSocketServer({ noServer: true, perMessageDeflate: { threshold: 0 } }));
    http.on('upgrade', (request: IncomingMessage, socket, head) =>
      wss.handleUpgrade(request, socket, head, (client) => wss.emit('connection', client, request)),
    );
    wss.on('connection', (socket) => {
      watch();
      socket.on('message', (data: Buffer) => {
        watch(true);
        setTimeout(() => socket.send(data), 1);
      });
    });
    http.listen(0, '127.0.0.1');
    await once(http, 'listening');
    const url = `ws://127.0.0.1:${(http.address() as AddressInfo).port}`;
    const clients = await Promise.all(
      Array.from({ length: 5 }, async () => {
        const client = new WebSocket(url, { perMessageDeflate: true });
        await once(client, 'open');
        return client;
      }),
    );
    expect(diagnosticsReport().openRequests).toBe(5);
    await Promise.all(
      clients.map(async (client) => {
        const echoed = new Promise<void>((resolve) => {
          let count = 0;
          client.on('message', () => ++count === 10 && resolve());
        });
        for (let i = 0; i < 10; i++) client.send(`m${i}`);
        await echoed;
      }),
    );
    // A scope ends with its message: while the connections are still open, no message scope is left.
    const messagesLive = () => [...messages].filter((id) => live.has(id)).length;
    await collectUntil(() => messagesLive() === 0);
    expect(messagesLive()).toBe(0);
    expect(live.size).toBe(5);
    await Promise.all(clients.map((client) => (client.close(), once(client, 'close'))));
    await allClosed();
    expect(diagnosticsReport().openRequests).toBe(0);
    expect(next).toBe(55);
    wss.close();
    http.close();
    await collectUntil(() => live.size === 0 && diagnosticsReport().watched === 0);
    expect(live.size).toBe(0);
    expect(diagnosticsReport()).toMatchObject({ watched: 0, retained: 0, crossed: 0 });
    expect(reports.filter((report) => report.kind === 'retained')).toEqual([]);
  });

  withGc(
    'ws with permessage-deflate: no message scope is kept by the socket’s zlib stream while it is open',
    async () => {
      // ws makes the zlib stream on the first compressed send, which holds the context it was made in until close.
      const live = new Set<number>();
      let next = 0;
      const finalized = new FinalizationRegistry<number>((id) => live.delete(id));
      const wss = scopeWebSocketServer(
        new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: { threshold: 0 } }),
      );
      await once(wss, 'listening');
      wss.on('connection', (socket) =>
        socket.on('message', (data: Buffer) => {
          const id = next++;
          live.add(id);
          finalized.register(scopeObject(requestContext)!, id);
          setTimeout(() => socket.send(data), 1);
        }),
      );
      const client = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`, {
        perMessageDeflate: true,
      });
      await once(client, 'open');
      const echoed = new Promise<void>((resolve) => {
        let count = 0;
        client.on('message', () => ++count === 5 && resolve());
      });
      for (let i = 0; i < 5; i++) client.send(`m${i}`);
      await echoed;
      await collectUntil(() => live.size === 0);
      expect([...live]).toEqual([]);
      client.close();
      await once(client, 'close');
      await new Promise((resolve) => wss.close(resolve));
    },
  );

  withGc('socket.io: the same for sockets and their events', async () => {
    const live = new Set<number>();
    let next = 0;
    const finalized = new FinalizationRegistry<number>((id) => live.delete(id));
    const watch = () => {
      const id = next++;
      live.add(id);
      finalized.register(scopeObject(requestContext)!, id);
    };
    const http = createServer();
    const io = new Server(http);
    io.use(socketIoContext());
    io.on('connection', (socket) => {
      watch();
      socket.on('echo', (text: string, ack: (text: string) => void) => {
        watch();
        setTimeout(() => ack(text), 1);
      });
    });
    http.listen(0, '127.0.0.1');
    await once(http, 'listening');
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    await Promise.all(
      Array.from({ length: 5 }, async () => {
        const client = connectClient(url, { transports: ['websocket'], forceNew: true });
        await Promise.all(Array.from({ length: 10 }, (_, i) => client.emitWithAck('echo', `m${i}`)));
        client.disconnect();
      }),
    );
    await allClosed();
    expect(diagnosticsReport().openRequests).toBe(0);
    expect(next).toBe(55);
    await io.close();
    await collectUntil(() => live.size === 0 && diagnosticsReport().watched === 0);
    expect(live.size).toBe(0);
    expect(diagnosticsReport()).toMatchObject({ watched: 0, retained: 0, crossed: 0 });
  });
});

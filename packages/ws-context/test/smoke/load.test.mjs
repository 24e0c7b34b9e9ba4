// The proof under load, on the built package: 200 clients on real servers on 127.0.0.1 (ws, then socket.io),
// each sending 50 messages without waiting, every handler awaiting a random delay between its two log lines. Every
// line pino writes (correlationMixin) carries its own message's request id, its connection's request id as
// causation and its connection's correlation id: none crossed, all 10,000 messages there. Then every client
// disconnects, and after collections no connection or message scope is left (diagnostics' retention watch and a
// FinalizationRegistry over the scopes). Run with node --expose-gc --test; no timing is asserted.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { test } from 'node:test';
import pino from 'pino';
import { Server } from 'socket.io';
import { io as connectClient } from 'socket.io-client';
import { WebSocket, WebSocketServer } from 'ws';
import { requestContext } from '@ambient/core';
import { scopeObject } from '@ambient/core/internal';
import { diagnosticsReport, enableDiagnostics } from '@ambient/diagnostics';
import { correlationMixin } from '@ambient/pino-context';
import { scopeWebSocketServer, socketIoContext } from '@ambient/ws-context';

const clients = 200;
const messagesEach = 50;
const pause = () => new Promise((resolve) => setTimeout(resolve, Math.random() * 3));

/** pino with correlationMixin, its lines kept as written; and every scope a handler ran in, held weakly. */
function observed() {
  const lines = [];
  const logger = pino({ mixin: correlationMixin() }, { write: (line) => lines.push(line) });
  const live = new Set();
  const messages = new Set();
  let watched = 0;
  const registry = new FinalizationRegistry((id) => live.delete(id));
  const watch = (message = false) => {
    const id = watched++;
    live.add(id);
    if (message) messages.add(id);
    registry.register(scopeObject(requestContext), id);
  };
  const messagesLive = () => [...messages].filter((id) => live.has(id)).length;
  return { lines, logger, live, watch, watchedCount: () => watched, messagesLive };
}

/** What one handler does with a message `{ client, nonce }`: a line, a random await, a line, the reply. */
async function handle(logger, watch, text, reply) {
  const { client, nonce } = JSON.parse(text);
  watch(true);
  logger.info({ client, nonce, step: 'received' });
  await pause();
  logger.info({ client, nonce, step: 'handled' });
  reply(nonce);
}

/** Every line in its message's scope, under its connection; none missing, none crossed. */
function checkLines(lines) {
  const byNonce = new Map();
  for (const text of lines) {
    const line = JSON.parse(text);
    assert.equal(line.causationId, `conn-${line.client}`, `line of client ${line.client} under another connection`);
    assert.equal(line.correlationId, `chain-${line.client}`);
    assert.ok(line.job !== undefined);
    (byNonce.get(line.nonce) ?? byNonce.set(line.nonce, []).get(line.nonce)).push(line);
  }
  assert.equal(byNonce.size, clients * messagesEach, 'every message logged');
  const ids = new Set();
  for (const [nonce, pair] of byNonce) {
    assert.deepEqual(pair.map((line) => line.step).sort(), ['handled', 'received'], nonce);
    assert.equal(pair[0].requestId, pair[1].requestId, `message ${nonce}: both lines in one scope`);
    assert.ok(!pair[0].requestId.startsWith('conn-'), `message ${nonce}: its own id, not its connection's`);
    ids.add(pair[0].requestId);
  }
  assert.equal(ids.size, clients * messagesEach, 'one request id a message');
}

/**
 * A scope ends with its message: once every message is answered, while the connections are still open, the
 * collector leaves no message scope (only the connections' own).
 */
async function messagesCollected(messagesLive) {
  for (let round = 0; round < 50 && messagesLive() > 0; round++) {
    globalThis.gc();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.equal(messagesLive(), 0, 'no message scope kept while its connection is open');
}

/** Waits until the server has seen every connection close (bounded: a failure, never a hang). */
async function allClosed() {
  for (let round = 0; round < 500 && diagnosticsReport().openRequests > 0; round++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Collects until nothing is left, or gives up after 50 rounds: finalizers run as tasks after a collection. */
async function collected(live) {
  for (let round = 0; round < 50 && (live.size > 0 || diagnosticsReport().watched > 0); round++) {
    globalThis.gc();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.equal(live.size, 0, 'no message or connection scope retained');
  const report = diagnosticsReport();
  assert.deepEqual([report.openRequests, report.watched, report.retained, report.crossed], [0, 0, 0, 0]);
}

const headersOf = (i) => ({ 'x-request-id': `conn-${i}`, 'x-correlation-id': `chain-${i}` });

test('ws: 200 clients x 50 interleaved messages, each line in its own message scope; nothing kept after', async (t) => {
  const diagnostics = enableDiagnostics({ warnings: false, retainedSampleEvery: 1 });
  t.after(() => diagnostics.disable());
  const { lines, logger, live, watch, watchedCount, messagesLive } = observed();
  const http = createServer();
  const wss = scopeWebSocketServer(new WebSocketServer({ server: http, perMessageDeflate: { threshold: 0 } }));
  wss.on('connection', (socket) => {
    watch();
    socket.on('message', (data) => handle(logger, watch, data.toString(), (nonce) => socket.send(nonce)));
  });
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  // On a failed assertion too: nothing left open that would keep the test process alive.
  t.after(() => {
    for (const client of wss.clients) client.terminate();
    wss.close();
    http.closeAllConnections();
    http.close();
  });
  const url = `ws://127.0.0.1:${http.address().port}`;
  const sockets = await Promise.all(
    Array.from({ length: clients }, async (_, i) => {
      const client = new WebSocket(url, { headers: headersOf(i), perMessageDeflate: i % 2 === 0 });
      await once(client, 'open');
      return client;
    }),
  );
  await Promise.all(
    sockets.map((client, i) => {
      const replies = new Promise((resolve) => {
        let count = 0;
        client.on('message', () => ++count === messagesEach && resolve());
      });
      for (let m = 0; m < messagesEach; m++) client.send(JSON.stringify({ client: i, nonce: `${i}.${m}` }));
      return replies;
    }),
  );
  checkLines(lines);
  assert.equal(watchedCount(), clients * (messagesEach + 1));
  await messagesCollected(messagesLive);
  await Promise.all(sockets.map((client) => (client.close(), once(client, 'close'))));
  await allClosed();
  await new Promise((resolve) => wss.close(resolve));
  sockets.length = 0;
  lines.length = 0;
  await collected(live);
});

test('socket.io: 200 clients x 50 interleaved events with acks, each line in its own event scope; nothing kept after', async (t) => {
  const diagnostics = enableDiagnostics({ warnings: false, retainedSampleEvery: 1 });
  t.after(() => diagnostics.disable());
  const { lines, logger, live, watch, watchedCount, messagesLive } = observed();
  const http = createServer();
  const io = new Server(http);
  io.use(socketIoContext());
  io.on('connection', (socket) => {
    watch();
    socket.on('work', (text, ack) => handle(logger, watch, text, ack));
  });
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  const url = `http://127.0.0.1:${http.address().port}`;
  const sockets = Array.from({ length: clients }, (_, i) =>
    connectClient(url, { transports: ['websocket'], forceNew: true, extraHeaders: headersOf(i) }),
  );
  const stopped = io.close.bind(io);
  const disconnect = sockets.map((client) => client.disconnect.bind(client));
  t.after(() => {
    for (const close of disconnect) close();
    return stopped();
  });
  await Promise.all(
    sockets.map((client, i) =>
      Promise.all(
        Array.from({ length: messagesEach }, (_, m) =>
          client.emitWithAck('work', JSON.stringify({ client: i, nonce: `${i}.${m}` })),
        ),
      ),
    ),
  );
  checkLines(lines);
  assert.equal(watchedCount(), clients * (messagesEach + 1));
  await messagesCollected(messagesLive);
  for (const client of sockets) client.disconnect();
  await allClosed();
  await stopped();
  sockets.length = 0;
  lines.length = 0;
  await collected(live);
});

// What Ambient costs a WebSocket message, in process, on real objects: a `ws` server socket's `message` event as
// ws emits it, and a socket.io server socket's event packet as its client hands it over (onAny, middlewares, the
// handler on the next tick), each connection opened once over 127.0.0.1. An async handler reads its request id
// after an await. Three servers each: none (no context), the hand-written wrapper (one AsyncLocalStorage#run a
// message, a new id, the connection's as causation: ws's listener wrapped, socket.io's `socket.use`) and Ambient's
// (scopeWebSocketServer, socketIoContext). The budget, on Node 24 (22 and 26 printed): Ambient at most 1 µs a
// message over the hand-written wrapper. CPU ns a message over 20,000 messages, the variants alternating in 5
// rounds in each of 3 fresh processes; the paired per-round differences (the order rotating), with a second
// `none` as the A/A control.
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { als } from './hand-written.mjs';
import { cpuRounds, reportMessageCosts } from './harness.mjs';

const require = createRequire(import.meta.url);
const messages = 20_000;
const rounds = 5;
const processes = 3;
const transports = ['ws', 'socket.io'];
const names = ['none', 'hand-written', 'ambient'];
const headers = { 'x-request-id': 'conn-bench', 'x-correlation-id': 'chain-bench' };

/** The hand-written scope of one message: a new id, the connection's id as causation, its correlation id. */
const messageStore = (connection) => ({
  requestId: randomUUID(),
  causationId: connection.requestId,
  correlationId: connection.correlationId,
});

/** A `ws` server of each variant, one client connected to each: calls to deliver a message to its socket. */
async function wsServers(handlers) {
  const { WebSocket, WebSocketServer } = require('ws');
  const { scopeWebSocketServer } = await import('@ambient/ws-context');
  const deliver = {};
  for (const name of Object.keys(handlers)) {
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    if (name === 'ambient') scopeWebSocketServer(wss);
    await once(wss, 'listening');
    const connected = new Promise((resolve) =>
      wss.on('connection', (socket, request) => {
        if (name !== 'hand-written') socket.on('message', handlers[name]);
        else {
          const connection = {
            requestId: request.headers['x-request-id'],
            correlationId: request.headers['x-correlation-id'],
          };
          socket.on('message', (data, isBinary) => als.run(messageStore(connection), handlers[name], data, isBinary));
        }
        resolve(socket);
      }),
    );
    const client = new WebSocket(`ws://127.0.0.1:${wss.address().port}`, { headers });
    const socket = await connected;
    await once(client, 'open');
    const data = Buffer.from('{"op":"ping"}');
    // As ws's receiver emits a message it has read from the wire.
    deliver[name] = () => socket.emit('message', data, false);
  }
  return deliver;
}

/** A socket.io server of each variant, one client connected to each: calls to hand its socket an event packet. */
async function socketIoServers(handlers) {
  const { createServer } = await import('node:http');
  const { Server } = require('socket.io');
  const { io: connectClient } = require('socket.io-client');
  const { socketIoContext } = await import('@ambient/ws-context');
  const deliver = {};
  for (const name of Object.keys(handlers)) {
    const http = createServer();
    const io = new Server(http);
    if (name === 'ambient') io.use(socketIoContext());
    http.listen(0, '127.0.0.1');
    await once(http, 'listening');
    const connected = new Promise((resolve) =>
      io.on('connection', (socket) => {
        if (name === 'hand-written') {
          const connection = {
            requestId: socket.request.headers['x-request-id'],
            correlationId: socket.request.headers['x-correlation-id'],
          };
          socket.use((_event, next) => als.run(messageStore(connection), next));
        }
        socket.on('order', handlers[name]);
        resolve(socket);
      }),
    );
    connectClient(`http://127.0.0.1:${http.address().port}`, { transports: ['websocket'], extraHeaders: headers });
    const socket = await connected;
    // As socket.io's client object hands over a decoded event packet (type 2: EVENT).
    deliver[name] = () => socket._onpacket({ type: 2, nsp: '/', data: ['order', { id: 42 }] });
  }
  return deliver;
}

/** The child: every variant's ns a message, round by round, for one transport. */
async function measure(transport) {
  const { requestContext } = await import('@ambient/core');
  let sink = 0;
  let pending;
  let settle;
  const handled = () => new Promise((resolve) => (settle = resolve));
  const handlers = {
    none: async () => {
      sink += (await null) ?? 1;
      settle();
    },
    'hand-written': async () => {
      sink += (await null) ?? als.getStore().requestId.length;
      settle();
    },
    ambient: async () => {
      sink += (await null) ?? requestContext.get('requestId').length;
      settle();
    },
  };
  const deliver = await (transport === 'ws' ? wsServers : socketIoServers)(handlers);
  const units = {};
  for (const name of [...names, 'none (A/A)']) {
    const send = deliver[name === 'none (A/A)' ? 'none' : name];
    units[name] = () => {
      pending = handled();
      send();
      return pending;
    };
  }
  const ns = await cpuRounds(units, { count: messages, rounds });
  process.stdout.write(JSON.stringify({ ns, sink: sink > 0 }));
  process.exit(0);
}

export async function run() {
  for (const transport of transports) {
    reportMessageCosts(fileURLToPath(import.meta.url), transport, {
      title: `${transport} messages in process`,
      processes,
      rounds,
      limitNs: 1000,
    });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === 'measure') await measure(process.argv[3]);
else if (process.argv[1] === fileURLToPath(import.meta.url)) await run();

// Starts the orders board on a free port, then as its clients: subscribes to placed orders over graphql-ws, sends
// a query and a mutation over HTTP at once, and chats twice over socket.io. Then prints every log line, grouped
// by correlation id, or by the connection that caused it where the line has none.
import { once } from 'node:events';
import { createClient } from 'graphql-ws';
import pino from 'pino';
import { io as connectSocketIo } from 'socket.io-client';
import { WebSocket } from 'ws';
import { correlationMixin } from '@ambient/pino-context';
import { createApp } from './app.mjs';

const lines = [];
let onLine = () => {};
const logger = pino(
  { mixin: correlationMixin(), base: undefined },
  { write: (line) => onLine(lines[lines.push(JSON.parse(line)) - 1]) },
);
const logged = (msg) =>
  lines.some((line) => line.msg === msg)
    ? Promise.resolve()
    : new Promise((resolve) => (onLine = (line) => line.msg === msg && resolve()));

const { server, close } = createApp({ logger });
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const { port } = server.address();

// graphql-ws sends no headers of its own: a WebSocket that sends the connection's request id.
class WebSocketWithId extends WebSocket {
  constructor(url, protocols) {
    super(url, protocols, { headers: { 'x-request-id': 'ws-conn' } });
  }
}
const graphqlWs = createClient({ url: `ws://127.0.0.1:${port}/graphql`, webSocketImpl: WebSocketWithId });
const placed = graphqlWs.iterate({ query: 'subscription OnOrderPlaced { orderPlaced { id } }' });
const firstEvent = placed.next();
await logged('watching placed orders');

const graphql = (requestId, query, variables) =>
  fetch(`http://127.0.0.1:${port}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': requestId, 'x-correlation-id': 'board-1' },
    body: JSON.stringify({ query, variables }),
  }).then((response) => response.json());
await Promise.all([
  graphql('req-get', 'query GetOrder($id: ID!) { order(id: $id) { item } }', { id: '1' }),
  graphql('req-place', 'mutation PlaceOrder($item: String!) { placeOrder(item: $item) { id } }', {
    item: 'secret-sauce-42',
  }),
]);
await firstEvent;

const chat = connectSocketIo(`http://127.0.0.1:${port}`, {
  transports: ['websocket'],
  extraHeaders: { 'x-request-id': 'io-conn' },
});
await chat.emitWithAck('chat', 'is order 2 on its way?');
await chat.emitWithAck('chat', 'thanks');

chat.disconnect();
await placed.return();
await graphqlWs.dispose();
await close();

// Ids the clients chose are short; generated ones are shown by their last six characters.
const short = (id) => (id.length > 12 ? id.slice(-6) : id);
// A message's scope takes its connection's correlation id, or its connection's request id where none came.
const groups = new Map();
for (const line of lines) {
  const key = line.correlationId ?? line.requestId;
  groups.set(key, [...(groups.get(key) ?? []), line]);
}
for (const [correlationId, group] of groups) {
  console.log(`\ncorrelationId ${correlationId}`);
  // Every field not shown in the columns is printed after the message: a value logged by mistake would show.
  for (const { via, requestId, causationId, correlationId: _, job, operation, msg, level, time, ...fields } of group) {
    const scope = job
      ? `${job.name} ${short(requestId)}, caused by ${short(causationId)}`
      : `${via === 'http' ? 'request' : 'connection'} ${short(requestId)}`;
    const op = operation ? `${operation.name} ${operation.type}` : '';
    const rest = Object.keys(fields).length ? ` ${JSON.stringify(fields)}` : '';
    console.log(`  ${via.padEnd(9)} ${scope.padEnd(32)} ${op.padEnd(27)} ${msg}${rest}`);
  }
}

import type { IncomingMessage } from 'node:http';
import type { JobInfo } from '@ambient/core';
import { bindFirstCall, diagnosticsProbe, sharedState } from '@ambient/core/internal';
import type { RequestContextOptions } from '@ambient/http-context';
import { ConnectionScope, connectionValues, readPolicy } from './connection-scope.js';
import { errors } from './errors.js';

/** The HTTP rules of `@ambient/http-context` for the upgrade request, all but `propagation`. */
export type WebSocketServerContextOptions = Omit<RequestContextOptions, 'propagation'>;

/** The parts of a `WebSocketServer` of `ws` 8 this package uses. */
export interface WebSocketServerLike {
  handleUpgrade(...args: never[]): void;
  on(event: 'headers', listener: (headers: string[], request: IncomingMessage) => void): unknown;
}

/** What the server's `handleUpgrade` hands its callback: a `WebSocket`, an EventEmitter. */
interface EmitterLike {
  emit(event: string | symbol, ...args: unknown[]): boolean;
  send?(...args: unknown[]): void;
  readonly _extensions?: Record<string, unknown>;
}

type UpgradeCallback = (client: EmitterLike, request: IncomingMessage) => void;
type HandleUpgrade = (request: IncomingMessage, socket: unknown, head: unknown, callback: UpgradeCallback) => void;

/** Every message of a `ws` socket: one job, shared. */
const messageJob: JobInfo = Object.freeze({ name: 'message', system: 'ws' });

/**
 * Servers already scoped, by any copy of this package (its ESM and CJS builds): a second scope would open each
 * message's scope inside another's.
 */
const scopedServers = sharedState('@ambient/ws-context.servers', () => new WeakSet<object>());

// The echoed id is written into the 101 response as it is: one that is not visible ASCII (a generated one) is not.
const headerValue = /^[\x21-\x7e]+$/;

/**
 * Gives every connection of `server` (a `WebSocketServer` of `ws` 8, `noServer` or not) a requestContext scope of
 * its own, opened from the upgrade request by the HTTP rules (`x-request-id`, `x-correlation-id`, `traceparent`),
 * and every message it receives a scope of its own inside it: a new `requestId`, the connection's request id as
 * `causationId`, its correlation id and trace, `job: { name: 'message', system: 'ws' }`. `verifyClient`, the
 * `connection` listeners and the socket's other events (`close`, `error`, `ping`) run in the connection's scope;
 * the upgrade response echoes its request id. Changes `server` and returns it. Apply it before the server takes its
 * first connection; listeners added before or after it (graphql-ws's `useServer`) are all covered.
 *
 *     const wss = scopeWebSocketServer(new WebSocketServer({ server }));
 */
export function scopeWebSocketServer<S extends WebSocketServerLike>(
  server: S,
  options?: WebSocketServerContextOptions,
): S {
  const where = 'scopeWebSocketServer(server, options)';
  if (typeof server?.handleUpgrade !== 'function' || typeof server.on !== 'function') {
    throw errors.invalidArgument(where, "a WebSocketServer of 'ws'", server);
  }
  if (scopedServers.has(server)) throw errors.invalidArgument(where, 'a WebSocketServer not scoped yet', server);
  const policy = readPolicy(options, where);
  scopedServers.add(server);
  // The connection of each request being upgraded, for the `headers` event, which gives only the request.
  const upgrading = new WeakMap<IncomingMessage, ConnectionScope>();
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called with the server as `this`, below
  const handleUpgrade = server.handleUpgrade as unknown as HandleUpgrade;
  // Per instance: `new WebSocketServer({ server })` calls this.handleUpgrade on every upgrade, and `noServer`
  // users (@fastify/websocket, @hono/node-ws, graphql-ws's examples) call it themselves.
  (server as unknown as { handleUpgrade: HandleUpgrade }).handleUpgrade = function handleUpgradeInScope(
    request,
    socket,
    head,
    callback,
  ) {
    const connection = new ConnectionScope(connectionValues(request, policy), policy.generate);
    return connection.open(() => {
      upgrading.set(request, connection);
      // An asynchronous verifyClient completes the upgrade from wherever its callback is called: the connection
      // is handed over in its own scope whatever that was.
      const connected: UpgradeCallback = (client, upgraded) => {
        connection.inConnection(
          () => {
            scopeSocket(client, connection);
            // @ambient/diagnostics, when on, follows the connection as it follows a request, until its `close`.
            diagnosticsProbe()?.requestOpened(upgraded, client, connection.requestId);
            callback(client, upgraded);
          },
          undefined,
          [],
        );
      };
      return Reflect.apply(handleUpgrade, this, [request, socket, head, connected]);
    });
  };
  const echoHeader = policy.echoHeader;
  if (echoHeader !== undefined) {
    server.on('headers', (headers, request) => {
      const requestId = upgrading.get(request)?.requestId;
      if (requestId !== undefined && headerValue.test(requestId)) headers.push(`${echoHeader}: ${requestId}`);
    });
  }
  return server;
}

/**
 * Makes each `message` the socket emits run its listeners in a scope of its own, and every other event in the
 * connection's. The socket's own `emit`, per instance: `on`, `once`, `addEventListener` and `events.on` all add
 * listeners that `emit` calls. ws hands a message over from the TCP socket's data event, whose context is the
 * server's, not the connection's.
 */
function scopeSocket(socket: EmitterLike, connection: ConnectionScope): void {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called with the socket as `this`, below
  const emit = socket.emit;
  socket.emit = function emitInScope(this: EmitterLike, event: string | symbol): boolean {
    // `arguments` as they are: no array of them made on a message's way in.
    // eslint-disable-next-line prefer-rest-params
    const args = arguments;
    return event === 'message'
      ? connection.inMessage(messageJob, emit, this, args)
      : connection.inConnection(emit, this, args);
  };
  // eslint-disable-next-line @typescript-eslint/unbound-method -- as above
  const send = socket.send;
  if (socket._extensions?.['permessage-deflate'] === undefined || typeof send !== 'function') return;
  // With permessage-deflate, ws makes the socket's zlib stream on its first compressed send, and zlib calls back
  // in the context its stream was made in (https://nodejs.org/api/async_context.html#troubleshooting-context-loss):
  // the first sender's message scope would be kept until close, and every later send's callback would run in it.
  // Sends start in the connection's scope, and each callback is bound to its sender's.
  socket.send = function sendInScope(this: EmitterLike, ...args: unknown[]): void {
    const last = args.length - 1;
    if (typeof args[last] === 'function') args[last] = bindFirstCall(args[last] as (...args: never[]) => unknown);
    connection.inConnection(send, this, args);
  };
}

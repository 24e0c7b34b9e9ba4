import type { IncomingMessage } from 'node:http';
import type { JobInfo } from '@ambient/core';
import { bindFirstCall, diagnosticsProbe, sharedState } from '@ambient/core/internal';
import { printable } from '@ambient/correlation/internal';
import type { RequestContextOptions } from '@ambient/http-context';
import { ConnectionScope, connectionValues, readPolicy } from './connection-scope.js';
import { errors } from './errors.js';

/**
 * The HTTP rules of `@ambient/http-context` for the handshake request, all but `propagation` and
 * `echoRequestId`: socket.io answers the handshake before any middleware runs.
 */
export type SocketIoContextOptions = Omit<RequestContextOptions, 'propagation' | 'echoRequestId'>;

/** The public part of a socket.io 4 `Socket` this package reads: the handshake's request. */
export interface SocketIoSocketLike {
  readonly request: IncomingMessage;
}

/** A namespace middleware, the slot of `io.use()` and `io.of(name).use()`. */
export type SocketIoMiddleware = (socket: SocketIoSocketLike, next: (error?: Error) => void) => void;

/** The socket.io 4 Socket's own members this package wraps (dist/socket.js). */
interface SocketInternals {
  readonly request?: { readonly rawHeaders?: unknown };
  readonly conn: object;
  readonly fns: readonly unknown[];
  acks: Map<number, unknown>;
  _onpacket(packet: { type: number; data?: unknown }): void;
  _onclose(...args: unknown[]): unknown;
  run(event: unknown[], fn: (error?: Error) => void): void;
}

// socket-io-parser's packet types: an event, and an event with binary attachments.
const EVENT = 2;
const BINARY_EVENT = 5;

/** Sockets already scoped, by any copy of this package: the middleware given to `io.use()` and a namespace's. */
const scopedSockets = sharedState('@ambient/ws-context.sockets', () => new WeakSet<object>());

/**
 * A socket.io 4 middleware (`io.use(socketIoContext())`, or a namespace's `use`) that gives each socket a
 * requestContext scope from its handshake request by the HTTP rules (`x-request-id`, `x-correlation-id`,
 * `traceparent`), and each event it receives a scope of its own inside it: a new `requestId`, the socket's request
 * id as `causationId`, its correlation id and trace, `job: { name: <the event>, system: 'socket.io' }`. The event's
 * `onAny` listeners, `socket.use()` middlewares, handlers and the acknowledgement it sends run there; the callback
 * of an `emit` with an acknowledgement runs in the scope that emitted; middlewares after this one, `connection`
 * and `disconnect` run in the socket's scope. Put it first: middlewares before it run without a scope.
 */
export function socketIoContext(options?: SocketIoContextOptions): SocketIoMiddleware {
  const where = 'socketIoContext(options)';
  const policy = readPolicy(options, where, ['echoRequestId']);
  return function ambientSocketIoContext(socket, next) {
    const internals = socket as unknown as SocketInternals;
    if (
      typeof internals?._onpacket !== 'function' ||
      typeof internals._onclose !== 'function' ||
      typeof internals.run !== 'function' ||
      !(internals.acks instanceof Map)
    ) {
      throw errors.invalidArgument(`${where} middleware`, 'a socket.io 4 Socket (io.use)', socket);
    }
    if (scopedSockets.has(socket)) return next();
    scopedSockets.add(socket);
    const connection = new ConnectionScope(connectionValues(internals.request, policy), policy.generate);
    connection.open(() => {
      scopeSocket(internals, connection);
      // @ambient/diagnostics, when on, follows the socket as it follows a request, until its connection closes.
      diagnosticsProbe()?.requestOpened(socket.request, internals.conn, connection.requestId);
      next();
    });
  };
}

/**
 * The socket's entry points, per instance. socket.io hands each packet over from the engine's data event, where
 * no scope of the socket is current, and calls `onAny` listeners before the socket's middlewares, so that a scope
 * opened in one of them misses them (socketio/socket.io#5386): each event packet is handled in a scope of its own
 * from the start, and the handlers follow on the tick after the last middleware.
 */
function scopeSocket(socket: SocketInternals, connection: ConnectionScope): void {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called with the socket as `this`, below
  const onpacket = socket._onpacket;
  socket._onpacket = function onpacketInScope(this: SocketInternals, packet) {
    if (packet?.type !== EVENT && packet?.type !== BINARY_EVENT) return onpacket.call(this, packet);
    return connection.inMessage(jobOf(packet.data), onpacket, this, [packet]);
  };
  // eslint-disable-next-line @typescript-eslint/unbound-method -- as above
  const onclose = socket._onclose;
  socket._onclose = function oncloseInScope(this: SocketInternals) {
    // eslint-disable-next-line prefer-rest-params
    return connection.inConnection(onclose, this, arguments);
  };
  // The handlers run on the tick after the last middleware's `next()`, in its context: a middleware that calls it
  // from a pool's or a client's callback would hand the event to another scope.
  // eslint-disable-next-line @typescript-eslint/unbound-method -- as above
  const run = socket.run;
  socket.run = function runInScope(this: SocketInternals, event, fn) {
    return run.call(this, event, this.fns.length === 0 ? fn : bindFirstCall(fn));
  };
  socket.acks = new ScopedAcks(socket.acks);
}

/**
 * The socket's pending acknowledgements, each callback bound to the scope that emitted: socket.io calls it from
 * the engine's data event. `emit`, `emitWithAck`, `timeout()` and broadcasts with an acknowledgement all set
 * theirs here.
 */
class ScopedAcks extends Map<number, unknown> {
  override set(id: number, ack: unknown): this {
    return super.set(id, bindFirstCall(ack as (...args: never[]) => unknown));
  }
}

/** The event's run: its name where it is printable text of at most 256 characters (a client chooses it). */
function jobOf(data: unknown): JobInfo {
  // socket.io's parser accepts an event packet only with an array of data, the name first.
  return { name: printable((data as readonly unknown[])[0]) ?? 'event', system: 'socket.io' };
}

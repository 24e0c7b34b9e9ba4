export {
  scopeWebSocketServer,
  type WebSocketServerContextOptions,
  type WebSocketServerLike,
} from './websocket-server.js';
export {
  socketIoContext,
  type SocketIoContextOptions,
  type SocketIoMiddleware,
  type SocketIoSocketLike,
} from './socket-io.js';
export type { WsContextError, WsContextErrorCode } from './errors.js';

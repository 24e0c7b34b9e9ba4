import { expect, test } from 'tstyche';
import { Server, type Namespace, type Socket } from 'socket.io';
import { WebSocketServer } from 'ws';
import { scopeWebSocketServer, socketIoContext, type SocketIoMiddleware } from '@ambient/ws-context';

test('scopeWebSocketServer gives back the server it was given, typed as it was', () => {
  const wss = new WebSocketServer({ noServer: true });
  expect(scopeWebSocketServer(wss)).type.toBe<WebSocketServer>();
  expect(scopeWebSocketServer(wss, { requestIdHeader: 'x-trace', echoRequestId: false })).type.toBe<WebSocketServer>();
  expect(scopeWebSocketServer).type.not.toBeCallableWith({ port: 8080 });
  expect(scopeWebSocketServer).type.not.toBeCallableWith(wss, { propagation: { allowedOrigins: [] } });
  expect(scopeWebSocketServer).type.not.toBeCallableWith(wss, { requestIdHeader: 42 });
});

test("socketIoContext fits io.use() and a namespace's use(), and takes no option that cannot apply", () => {
  const io = new Server();
  expect(socketIoContext()).type.toBe<SocketIoMiddleware>();
  expect(io.use(socketIoContext())).type.toBe<Server>();
  expect(io.of('/chat').use(socketIoContext({ correlationId: false }))).type.toBe<Namespace>();
  expect(socketIoContext()).type.toBeAssignableTo<Parameters<Server['use']>[0]>();
  expect(socketIoContext).type.not.toBeCallableWith({ echoRequestId: true });
  expect(socketIoContext).type.not.toBeCallableWith({ propagation: { allowedOrigins: [] } });
  const socket = new Server().of('/').sockets.get('id') as Socket;
  expect(socketIoContext()).type.toBeCallableWith(socket, () => {});
});

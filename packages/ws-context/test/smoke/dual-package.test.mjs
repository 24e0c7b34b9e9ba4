// Plain `node --test` on the built package, outside jest: the ESM and CJS builds share one requestContext and
// one record of the servers and sockets they scoped, so a server scoped through one build is refused by the other.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { WebSocket, WebSocketServer } from 'ws';
import * as esm from '@ambient/ws-context';
import * as core from '@ambient/core';

const require = createRequire(import.meta.url);
const cjs = require('@ambient/ws-context');

test('the ESM and CJS builds share requestContext and the servers they scoped', async () => {
  assert.equal(core.requestContext, require('@ambient/core').requestContext);
  const wss = cjs.scopeWebSocketServer(new WebSocketServer({ port: 0, host: '127.0.0.1' }));
  assert.throws(() => esm.scopeWebSocketServer(wss), { code: 'ERR_AMBIENT_WS_INVALID_ARGUMENT' });
  await once(wss, 'listening');
  const seen = new Promise((resolve) =>
    wss.on('connection', (socket) => socket.on('message', () => resolve(core.requestContext.snapshot()))),
  );
  const client = new WebSocket(`ws://127.0.0.1:${wss.address().port}`, { headers: { 'x-request-id': 'conn-dual' } });
  await once(client, 'open');
  client.send('hello');
  const store = await seen;
  assert.equal(store.causationId, 'conn-dual');
  assert.notEqual(store.requestId, 'conn-dual');
  client.close();
  await new Promise((resolve) => wss.close(resolve));
});

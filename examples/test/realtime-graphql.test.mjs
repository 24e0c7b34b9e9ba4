// The realtime GraphQL example end to end: its demo, on one local server, prints the lines of two HTTP requests,
// a graphql-ws subscription and two socket.io events, each with its own id, its connection as causation and its
// GraphQL operation, and never a variable's value.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { demoGroups } from './demo-groups.mjs';

test('examples/realtime-graphql: every request and message names itself, its connection and its operation', () => {
  const groups = new Map(demoGroups('../realtime-graphql/demo.mjs').map(([id, ...lines]) => [id, lines]));
  const all = [...groups.values()].flat();
  assert.ok(!all.some((line) => line.includes('secret-sauce-42')), all.join('\n'));

  // HTTP: both requests in the chain they came with, each line (the DataLoader's batch too) with its operation.
  const board = groups.get('board-1') ?? [];
  const withRequest = (id) => board.filter((line) => line.includes(`request ${id} `));
  assert.deepEqual(
    withRequest('req-get').map((line) => line.includes('GetOrder query')),
    [true, true],
    board.join('\n'),
  );
  assert.ok(withRequest('req-get').some((line) => line.endsWith('loading orders {"batch":1}')));
  assert.match(withRequest('req-place').join('\n'), /PlaceOrder mutation +order placed and published$/);

  // Messages: each its own id, caused by its connection's request id.
  const messages = (connection, event) => {
    const lines = groups.get(connection) ?? [];
    return lines.flatMap((line) => {
      const [, id] = line.match(new RegExp(`${event} (\\w+), caused by ${connection} `)) ?? [];
      return id ? [{ id, line }] : [];
    });
  };
  const subscription = messages('ws-conn', 'message');
  assert.equal(subscription.length, 2, groups.get('ws-conn')?.join('\n'));
  assert.notEqual(subscription[0].id, 'ws-conn');
  for (const { line } of subscription) assert.match(line, /OnOrderPlaced subscription/);
  assert.match(subscription[1].line, /order placed event$/);
  assert.equal(subscription[1].id, subscription[0].id, 'an event runs in the scope its subscribe message opened');

  const chat = messages('io-conn', 'chat');
  assert.equal(chat.length, 2, groups.get('io-conn')?.join('\n'));
  assert.notEqual(chat[0].id, chat[1].id);
  assert.ok(!chat.some(({ id }) => id === 'io-conn'));
});

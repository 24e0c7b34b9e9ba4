// Starts the app, asks for four customers' orders at once (on a pool of two connections, so most requests wait
// for another to release one), then prints every log line grouped by its requestId: each group is one request,
// its own lines and the queries it made, though the requests ran interleaved and their callbacks were called
// from other requests' callbacks.
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from './app.mjs';

const connectionString = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const { hostname, port } = new URL(connectionString);
const postgresUp = await new Promise((resolve) => {
  const socket = net.connect({ host: hostname, port: Number(port || 5432) });
  socket.once('connect', () => resolve(socket.destroy() || true));
  socket.once('error', () => resolve(false));
});
if (!postgresUp) {
  console.error(`This example needs PostgreSQL at ${connectionString} (or DATABASE_URL). Start it and rerun.`);
  process.exit(1);
}

const dir = mkdtempSync(join(tmpdir(), 'ambient-drivers-pg-'));
const logFile = join(dir, 'app.log');
const { app, close } = createApp({ logDestination: logFile, connectionString });
const server = http.createServer(app).listen(0, '127.0.0.1');
await once(server, 'listening');

const customers = ['ada', 'grace', 'linus', 'margaret'];
const responses = await Promise.all(
  customers.map(async (customer) => {
    const response = await fetch(`http://127.0.0.1:${server.address().port}/customers/${customer}/orders`);
    if (!response.ok) throw new Error(`GET /customers/${customer}/orders: ${response.status} ${await response.text()}`);
    return { customer, requestId: response.headers.get('x-request-id'), body: await response.json() };
  }),
);
server.close();
await close();

const lines = readFileSync(logFile, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line));
rmSync(dir, { recursive: true, force: true });
const ids = responses.map((response) => response.requestId);
console.log(
  `${customers.length} concurrent requests on a pool of 2 connections, ${lines.length} log lines, as written ` +
    `(#n: the request that wrote it, -: outside any request):\n\n  ` +
    lines.map((line) => (line.requestId === undefined ? '-' : `#${ids.indexOf(line.requestId) + 1}`)).join(' '),
);
console.log('\nThe same lines grouped by the requestId that correlationMixin() wrote on each:');
const groups = new Map();
for (const line of lines) groups.set(line.requestId, [...(groups.get(line.requestId) ?? []), line]);
let everyLineCorrelated = true;
for (const [requestId, group] of groups) {
  const index = ids.indexOf(requestId);
  const customer = responses[index]?.customer;
  console.log(
    requestId === undefined
      ? '\noutside any request'
      : `\n#${index + 1} GET /customers/${customer}/orders, request ${requestId}`,
  );
  for (const line of group) {
    const what = line.db
      ? `query   ${line.db.statement}  (${line.db.durationMs} ms)`
      : `${line.msg.padEnd(7)} ${JSON.stringify(line.customer ?? line.patched)}`;
    console.log(`  ${what}`);
  }
  // Each request: its two lines, and BEGIN, the SELECT and COMMIT in between, all its own.
  everyLineCorrelated &&=
    requestId === undefined ||
    (group.length === 5 && group.filter((line) => line.db).length === 3 && group.at(-1).customer === customer);
}
if (!everyLineCorrelated || groups.size !== customers.length + 1) {
  console.error('\nSome line is not with its request (see above).');
  process.exitCode = 1;
}

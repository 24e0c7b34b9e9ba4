// Starts the app here and the worker in a forked process, signs three users up at once (one of them inside a
// chain that already has a correlation id), waits for their welcome mails and audit jobs, then prints every log
// line of both processes grouped by correlation id: one group per signup, across two processes and three runs.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const redisUp = await new Promise((resolve) => {
  const socket = net.connect({ host: '127.0.0.1', port: 6379 });
  socket.once('connect', () => resolve(socket.destroy() || true));
  socket.once('error', () => resolve(false));
});
if (!redisUp) {
  console.error('This example needs Redis on 127.0.0.1:6379 (BullMQ keeps its queues there). Start it and rerun.');
  process.exit(1);
}

process.env.QUEUE = `ambient-example-${process.pid}`;
const { createApp } = await import('./app.mjs');
const dir = mkdtempSync(join(tmpdir(), 'ambient-jobs-'));
const webLog = join(dir, 'web.log');
const workerLog = join(dir, 'worker.log');

const worker = fork(new URL('./worker.mjs', import.meta.url), { env: { ...process.env, LOG_FILE: workerLog } });
await once(worker, 'message');
const { app, queue } = createApp({ logDestination: webLog });
const server = http.createServer(app).listen(0, '127.0.0.1');
await once(server, 'listening');

let completed = 0;
const allDone = new Promise((resolve) =>
  worker.on('message', (message) => message?.completed && ++completed === 6 && resolve()),
);
const signup = (email, headers = {}) =>
  fetch(`http://127.0.0.1:${server.address().port}/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ email }),
  });
await Promise.all([
  signup('ada@example.com'),
  signup('grace@example.com'),
  signup('linus@example.com', { 'x-correlation-id': 'campaign-2026-11' }),
]);
await allDone;
worker.send('stop');
await once(worker, 'exit');
server.close();
await queue.obliterate({ force: true });
await queue.close();

const read = (file) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
const lines = [...read(webLog), ...read(workerLog)].sort((a, b) => a.time - b.time);
// A request that brought no correlation id starts its chain: its jobs carry its request id as correlation id.
const groups = new Map();
for (const line of lines) {
  const key = line.correlationId ?? line.requestId;
  groups.set(key, [...(groups.get(key) ?? []), line]);
}
for (const [correlationId, group] of groups) {
  console.log(`\ncorrelationId ${correlationId}`);
  for (const line of group) {
    const run = line.job
      ? `${line.job.name} run ${line.requestId.slice(-6)}, caused by ${line.causationId?.slice(-6)}`
      : `request ${line.requestId.slice(-6)}`;
    console.log(`  ${line.service.padEnd(6)} ${run.padEnd(52)} ${line.msg}`);
  }
}

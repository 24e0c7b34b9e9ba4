// Starts the app, signs up four users at once (one of them, mallory, makes her task fail), then prints every
// log line grouped by its correlation id: each group is one request, the lines of its handler and of its task
// in a worker thread, though the requests ran at once and their tasks on piscina's threads.
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = mkdtempSync(join(tmpdir(), 'ambient-threads-piscina-'));
// Set before the app starts: piscina's threads take a copy of this process's environment.
process.env.LOG_FILE = join(dir, 'app.log');
const { createApp } = await import('./app.mjs');
const { app, close } = createApp();
const server = http.createServer(app).listen(0, '127.0.0.1');
await once(server, 'listening');

const users = ['ada', 'grace', 'linus', 'mallory'];
await Promise.all(
  users.map((user) => fetch(`http://127.0.0.1:${server.address().port}/users/${user}`, { method: 'POST' })),
);
server.close();
await close();

const lines = readFileSync(process.env.LOG_FILE, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line));
rmSync(dir, { recursive: true, force: true });

// A request that came without an x-correlation-id starts its chain: its own id is the chain's, which its
// tasks carry as their correlationId.
const chainOf = (line) => line.correlationId ?? line.requestId;
const groups = new Map();
for (const line of lines) groups.set(chainOf(line), [...(groups.get(chainOf(line)) ?? []), line]);
let everyLineWithItsRequest = groups.size === users.length;
for (const [correlationId, group] of groups) {
  console.log(`\ncorrelationId ${correlationId}`);
  for (const line of group) {
    const where = line.job
      ? `thread ${line.threadId}, run ${line.requestId}, caused by ${line.causationId}`
      : `request ${line.requestId}`;
    console.log(`  ${line.msg.padEnd(15)} ${line.user.padEnd(8)} ${where}`);
  }
  // One user per group, and every task line caused by the request of that group.
  const request = group.find((line) => !line.job)?.requestId;
  everyLineWithItsRequest &&=
    request === correlationId &&
    new Set(group.map((line) => line.user)).size === 1 &&
    group.filter((line) => line.job).every((line) => line.causationId === request);
}
if (!everyLineWithItsRequest) {
  console.error('\nSome line is not with its request (see above).');
  process.exitCode = 1;
}

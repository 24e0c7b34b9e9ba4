// Issue #16's soak: SOAK_REQUESTS requests at concurrency 100, each with its own x-request-id, against an express 5
// app in a forked process (fixtures/soak-server.mjs) whose handlers share a pg pool (max 5), a mysql2 pool
// (connectionLimit 5), one ioredis client and one node-redis client with every other request, on the real
// PostgreSQL, MariaDB and Redis; callbacks and promises (node-redis: promises).
// Every callback and every await checks the request's own id, every query returns the request's own literal,
// and every pino line's requestId must match the id written in its message: zero mismatches.
//
//   node packages/drivers-context/test/smoke/soak.test.mjs                  10,000 requests (the operator's run)
//   node --test packages/drivers-context/test/smoke/soak.test.mjs           2,000 (the suite's size, for CI time)
//   SOAK_REQUESTS=50000 node packages/drivers-context/test/smoke/soak.test.mjs
//   SOAK_GUARD=0 node packages/drivers-context/test/smoke/soak.test.mjs     no guard: reports the mismatches, asserts none
//
// The size's default tells the two apart by NODE_TEST_CONTEXT, which `node --test` sets in the processes it runs.
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { serviceSkip } from '../../../../scripts/services.mjs';

const requests = Number(process.env.SOAK_REQUESTS ?? (process.env.NODE_TEST_CONTEXT === undefined ? 10_000 : 2_000));
const concurrency = 100;
const guarded = process.env.SOAK_GUARD !== '0';
const stepsPerRequest = 9; // the check() calls of mixedWork in fixtures/soak-server.mjs
// Skipped only where PostgreSQL, MariaDB or Redis is not reachable on 127.0.0.1, with a loud warning; under
// CI=true serviceSkip throws instead, so CI always runs it.
const skip = (await serviceSkip('postgres')) ?? (await serviceSkip('mariadb')) ?? (await serviceSkip('redis'));

/** The child's next IPC message; rejects if it exits first. */
function nextMessage(child) {
  return new Promise((resolve, reject) => {
    const exited = (code) => reject(new Error(`the soak server exited (${code}) before answering`));
    child.once('exit', exited);
    child.once('message', (message) => {
      child.off('exit', exited);
      resolve(message);
    });
  });
}

/** GET /work with `id` as x-request-id on a keep-alive socket: the response's status, echoed id and body. */
function get(agent, port, id) {
  return new Promise((resolve, reject) => {
    const request = http.get({ agent, host: '127.0.0.1', port, path: '/work', headers: { 'x-request-id': id } });
    request.once('error', reject);
    request.once('response', (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (body += chunk));
      response.once('end', () =>
        resolve({ status: response.statusCode, echoed: response.headers['x-request-id'], body: JSON.parse(body) }),
      );
    });
  });
}

const title = `${requests} requests at concurrency ${concurrency} on pg, mysql2, ioredis and node-redis`;

// `skip` (above): set only where PostgreSQL, MariaDB or Redis is not reachable; under CI=true serviceSkip throws.
test(`${title}, ${guarded ? 'guarded' : 'NOT guarded'}`, { skip, timeout: 15 * 60_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ambient-drivers-soak-'));
  const logFile = join(dir, 'soak.log');
  const child = fork(new URL('./fixtures/soak-server.mjs', import.meta.url), {
    env: { ...process.env, LOG_FILE: logFile, SOAK_GUARD: guarded ? '1' : '0' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    const { port, guarded: guards } = await nextMessage(child);
    t.diagnostic(`guard: ${guards.length === 0 ? 'none' : guards.join(', ')}`);
    const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
    const tag = randomBytes(3).toString('hex');
    const responseMismatches = [];
    let next = 0;
    const started = process.hrtime.bigint();
    // `concurrency` loops, each sending its next request when its last one has answered.
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < requests) {
          const id = `soak-${tag}-${next++}`;
          const { status, echoed, body } = await get(agent, port, id);
          if (status !== 200 || echoed !== id || body.id !== id) responseMismatches.push({ id, status, echoed, body });
        }
      }),
    );
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    agent.destroy();
    child.send('stop');
    const { steps, failures, mismatches } = await nextMessage(child);
    await once(child, 'exit');

    const lines = readFileSync(logFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    // A line's own id is the last word of its message; the mixin wrote the requestId it saw.
    const lineMismatches = lines.filter((line) => line.requestId !== line.msg.slice(line.msg.lastIndexOf(' ') + 1));
    const checkMismatches = Object.values(mismatches).reduce((sum, count) => sum + count, 0);
    t.diagnostic(
      `${requests} requests in ${seconds.toFixed(1)} s (${(requests / seconds).toFixed(0)} req/s), ` +
        `${steps} checks, ${lines.length} log lines; mismatches: ${checkMismatches} in the handlers, ` +
        `${lineMismatches.length} log lines, ${responseMismatches.length} responses`,
    );
    for (const [where, count] of Object.entries(mismatches)) t.diagnostic(`  ${where}: ${count}`);

    assert.equal(failures, 0, 'no query failed');
    assert.equal(steps, requests * stepsPerRequest, 'every step of every request ran');
    assert.equal(lines.length, requests * stepsPerRequest, 'one log line per step');
    if (!guarded) return; // the unguarded run reports, it asserts nothing more
    assert.deepEqual(mismatches, {}, 'every callback and await saw its own request and its own value');
    assert.deepEqual(lineMismatches.slice(0, 5), [], 'every log line carries the request it was written in');
    assert.deepEqual(responseMismatches.slice(0, 5), [], 'every response echoes and reads back its own id');
  } finally {
    if (child.exitCode === null) child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});

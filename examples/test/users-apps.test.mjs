// The four example apps (express, koa, fastify, hono) serve one API and log one way: checked on the in-memory store and on real Redis
// (127.0.0.1:6379, or REDIS_URL). Without Redis the Redis runs are skipped with a warning, except under
// CI=true, where a missing Redis fails the run.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { Writable } from 'node:stream';
import { describe, test, before, after } from 'node:test';
import net from 'node:net';
import pino from 'pino';
import { correlationMixin } from '@ambient/pino-context';
import { createMemoryStore, createRedisStore, seedUsers } from '@ambient/example-users-store';
import { createApp as createExpressApp } from '../express-users/app.mjs';
import { createApp as createKoaApp } from '../koa-users/app.mjs';
import { createApp as createFastifyApp } from '../fastify-users/app.mjs';
import { createApp as createHonoApp } from '../hono-users/app.mjs';
import { serve } from '@hono/node-server';

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** express and koa apps both answer listen() with a node:http server. */
const onNodeHttp = (createApp) => async (deps) => {
  const server = createApp(deps).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { port: server.address().port, close: () => new Promise((resolve) => server.close(resolve)) };
};

const frameworks = {
  express: onNodeHttp(createExpressApp),
  koa: onNodeHttp(createKoaApp),
  async fastify(deps) {
    const app = await createFastifyApp(deps);
    await app.listen({ port: 0, host: '127.0.0.1' });
    return { port: app.server.address().port, close: () => app.close() };
  },
  async hono(deps) {
    const app = createHonoApp(deps);
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    await once(server, 'listening');
    return { port: server.address().port, close: () => new Promise((resolve) => server.close(resolve)) };
  },
};

async function redisReachable() {
  const { hostname, port } = new URL(redisUrl);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port || 6379) });
    socket.setTimeout(1000, () => socket.destroy());
    socket.once('connect', () => (socket.end(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => resolve(false));
  });
}

function logSink() {
  const lines = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { stream, lines };
}

/**
 * Waits 20 ms, then until `done()` holds (five seconds at most): 'response sent' is logged on the server's
 * 'finish', which can come after the client has the whole response, and on a loaded machine (the smoke tests
 * run side by side) the 20 ms alone are not always enough. Never shorter than before: a stray line logged
 * within those 20 ms still fails the test.
 */
async function logged(done) {
  await new Promise((resolve) => setTimeout(resolve, 20));
  const deadline = Date.now() + 5_000;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
}

const redisUp = await redisReachable();
if (!redisUp) {
  if (process.env.CI === 'true')
    throw new Error(`CI=true but Redis is not reachable at ${redisUrl}: the Redis store tests cannot run`);
  console.warn(`\n*** Redis is not reachable at ${redisUrl}: SKIPPING the example apps' Redis store tests ***\n`);
}

for (const [framework, start] of Object.entries(frameworks)) {
  for (const storeKind of ['memory', 'redis']) {
    // The Redis store's cases skip only on a machine without Redis (warned above); under CI=true the check above
    // throws instead, so CI always runs them.
    describe(
      `${framework}-users on the ${storeKind} store`,
      { skip: storeKind === 'redis' && !redisUp && 'Redis not reachable' },
      () => {
        const { stream, lines } = logSink();
        const logger = pino({ level: 'debug', mixin: correlationMixin() }, stream);
        let app;
        let store;
        const url = (path) => `http://127.0.0.1:${app.port}${path}`;

        before(async () => {
          store =
            storeKind === 'redis'
              ? await createRedisStore({ logger, url: redisUrl, prefix: `ambient-test:${framework}:${process.pid}:` })
              : createMemoryStore({ logger });
          app = await start({ store, logger });
        });
        after(async () => {
          await app?.close();
          await store?.close();
        });

        test('GET /users/:id answers the user, 404 when absent, 400 for a malformed id, 500 on a corrupt record', async () => {
          const found = await fetch(url('/users/2'));
          assert.equal(found.status, 200);
          assert.deepEqual(await found.json(), seedUsers[1]);
          assert.match(found.headers.get('x-request-id'), /^[0-9a-f]{8}-[0-9a-f]{4}-7/);

          for (const [path, status] of [
            ['/users/99', 404],
            ['/users/abc', 400],
            ['/users/0', 400],
            ['/users/13', 500],
          ]) {
            const response = await fetch(url(path), {
              headers: { 'x-request-id': `check-${status}-${path.slice(7)}` },
            });
            assert.equal(response.status, status, path);
            assert.equal((await response.json()).requestId, `check-${status}-${path.slice(7)}`);
          }
          const failed = lines.find((line) => line.msg === 'request failed');
          assert.equal(failed.requestId, 'check-500-13');
          assert.equal(failed.err.type, 'CorruptRecordError');
          // Every one of the five has written its last line before the next test empties `lines` and counts.
          await logged(() => lines.filter((line) => line.msg === 'response sent').length >= 5);
          assert.equal(lines.filter((line) => line.msg === 'response sent').length, 5, 'one line for each response');
        });

        test('50 concurrent requests: every line carries its own request id, from middleware, handler and store', async () => {
          lines.length = 0;
          const ids = Array.from({ length: 50 }, (_, i) => `burst-${framework}-${i}`);
          const responses = await Promise.all(
            ids.map((id, i) => fetch(url(`/users/${(i % seedUsers.length) + 1}`), { headers: { 'x-request-id': id } })),
          );
          assert.deepEqual(
            responses.map((response) => response.headers.get('x-request-id')),
            ids,
          );
          await Promise.all(responses.map((response) => response.json()));
          await logged(() => lines.length >= ids.length * 4);
          for (const [i, id] of ids.entries()) {
            const own = lines.filter((line) => line.requestId === id);
            assert.deepEqual(
              own.map((line) => line.msg),
              ['request received', 'store lookup', 'user found', 'response sent'],
              id,
            );
            assert.equal(own[1].id, String((i % seedUsers.length) + 1));
          }
          assert.equal(lines.length, ids.length * 4, 'no line without a request id, none with a foreign one');
        });

        test('a malicious x-request-id is replaced, never echoed or logged', async () => {
          lines.length = 0;
          const malicious = '"><script>alert(1)</script>';
          const response = await fetch(url('/users/1'), { headers: { 'x-request-id': malicious } });
          const echoed = response.headers.get('x-request-id');
          assert.notEqual(echoed, malicious);
          assert.match(echoed, /^[0-9a-f-]{36}$/);
          await logged(() => lines.some((line) => line.msg === 'response sent'));
          assert.ok(lines.length > 0 && lines.every((line) => line.requestId === echoed));
          assert.ok(!JSON.stringify(lines).includes('<script>'));
        });
      },
    );
  }
}

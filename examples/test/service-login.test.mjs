// The service check the tests share (scripts/services.mjs) tells a refused login from an absent service: a
// private redis-server of this test's own, with a password the tests do not send, refuses, and the message names
// the service, the reason and the fix. The shared services are never touched.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import { test } from 'node:test';
import { loginRefusal, reachable, services } from '../../scripts/services.mjs';

const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;
// The refusal needs a private server of this test's own (the shared Redis is never given a password): without the
// redis-server binary the case is skipped, loudly, except under CI=true, where it runs and fails.
const skip = !hasRedisServer && process.env.CI !== 'true' && 'redis-server is not installed';
if (skip) console.warn(`\n  SKIPPED: ${skip}\n`);

/** A free port on 127.0.0.1. */
async function freePort() {
  const server = net.createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  server.close();
  return port;
}

test('a reachable service that refuses the login is named, with the reason and the fix', { skip }, async (t) => {
  const port = await freePort();
  const redis = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--requirepass',
      'not-the-tests',
      '--save',
      '',
      '--appendonly',
      'no',
    ],
    { stdio: 'ignore' },
  );
  t.after(() => redis.kill());
  for (let i = 0; i < 100 && !(await reachable(port)); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  const refusal = await loginRefusal('redis', port);
  assert.match(refusal ?? '', new RegExp(`^redis on 127\\.0\\.0\\.1:${port} refused the tests' login`));
  assert.match(refusal ?? '', /NOAUTH/);
  assert.match(refusal ?? '', /README's settings/);
});

test("this machine's services that are there take the tests' login", async () => {
  for (const service of ['postgres', 'mariadb', 'redis', 'rabbitmq']) {
    if (!(await reachable(services[service]))) {
      assert.notEqual(process.env.CI, 'true', `${service} is not reachable, and CI=true requires it`);
      console.warn(`\n  SKIPPED: ${service} is not reachable\n`);
      continue;
    }
    assert.equal(await loginRefusal(service), undefined, service);
  }
});

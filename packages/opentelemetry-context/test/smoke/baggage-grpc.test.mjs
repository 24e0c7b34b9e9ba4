// The chain's ids through a transport OpenTelemetry instruments and Ambient does not bind: gRPC, client in this
// process, server in another, both with the SDK on AmbientContextManager and correlationPropagator(). 50
// concurrent calls, each from its own request scope: the server's handler runs in a scope of its own, the calling
// request as causation, its chain's correlation id. Without the propagator on the server, no scope; forged or
// oversized baggage opens none.
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

process.env.PROPAGATOR = 'ambient';
const require = createRequire(import.meta.url);
const { grpc, Echo } = require('./fixtures/grpc-tracing.cjs');
const { requestContext } = require('@ambient/core');
const uuidv7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function startServer(propagator) {
  const child = fork(fileURLToPath(new URL('fixtures/grpc-echo-server.cjs', import.meta.url)), {
    env: { ...process.env, PROPAGATOR: propagator },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const lines = [];
  let pending = '';
  child.stdout.on('data', (chunk) => {
    pending += chunk;
    const parts = pending.split('\n');
    pending = parts.pop();
    for (const part of parts) lines.push(JSON.parse(part));
  });
  const [{ port }] = await once(child, 'message');
  const client = new Echo(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const say = (text, metadata = new grpc.Metadata()) =>
    new Promise((resolve, reject) =>
      client.Say({ text }, metadata, (error, reply) => (error ? reject(error) : resolve(reply))),
    );
  let stopped;
  return {
    lines,
    say,
    /**
     * Stops the server and resolves once all it printed has arrived: a reply can come back over TCP before the
     * line the handler printed first has crossed the stdout pipe. Once, however often it is called.
     */
    stop() {
      stopped ??= (async () => {
        const ended = Promise.all([once(child, 'exit'), once(child.stdout, 'end')]);
        client.close();
        child.send('stop');
        await ended;
      })();
      return stopped;
    },
  };
}

test('a gRPC handler runs in a scope of its own, caused by the calling request, in its chain', async () => {
  const server = await startServer('ambient');
  try {
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        requestContext.run({ requestId: `req-${i}`, ...(i % 2 === 0 ? { correlationId: `chain-${i}` } : {}) }, () =>
          server.say(`call-${i}`),
        ),
      ),
    );
    await server.say('outside any request');
    const hostile = {
      forged: 'correlationId=%3Cscript%3E,causationId=%3Cimg%20src%3Dx%3E',
      'an id over 128 characters': `causationId=${'a'.repeat(129)}`,
    };
    for (const [text, baggage] of Object.entries(hostile)) {
      const metadata = new grpc.Metadata();
      metadata.set('baggage', baggage);
      await server.say(text, metadata);
    }
    await server.stop();
    const lines = server.lines;
    assert.equal(lines.length, 53);
    for (let i = 0; i < 50; i++) {
      const line = lines.find((candidate) => candidate.text === `call-${i}`);
      assert.equal(line.causationId, `req-${i}`);
      assert.equal(line.correlationId, i % 2 === 0 ? `chain-${i}` : `req-${i}`);
      assert.match(line.requestId, uuidv7);
    }
    assert.equal(new Set(lines.map((line) => line.requestId)).size, 53 - 3 + 1, 'one id per call; none outside');
    for (const text of ['outside any request', ...Object.keys(hostile)]) {
      assert.deepEqual(
        lines.find((line) => line.text === text),
        { text },
        `${text}: no scope, nothing taken`,
      );
    }
  } finally {
    await server.stop();
  }
});

test('without correlationPropagator on the server, its handler has no scope', async () => {
  const server = await startServer('plain');
  try {
    await requestContext.run({ requestId: 'req-plain', correlationId: 'chain-plain' }, () => server.say('plain'));
    await server.stop();
    assert.deepEqual(server.lines, [{ text: 'plain' }]);
  } finally {
    await server.stop();
  }
});

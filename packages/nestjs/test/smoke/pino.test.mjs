// nestjs-pino with correlationMixin() and pinoHttpGenReqId under AmbientModule, on Nest 12 (express and
// fastify): lines written through PinoLogger and through Nest's Logger carry their own request's id, which is
// also pino-http's req.id; an untrusted incoming id is never written.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, test } from 'node:test';
import { startNest } from './nest-process.mjs';

const requests = 200;
const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
after(() => agent.destroy());

function get(port, path, headers) {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path, headers, agent }, (response) => {
      response.resume();
      response.on('end', () => resolve(response));
    });
    request.on('error', reject);
  });
}

/** pino's lines among what the process wrote. */
const pinoLines = (stdout) =>
  stdout
    .split('\n')
    .filter((line) => line.startsWith('{"level":') && line.includes('"time"'))
    .map((line) => JSON.parse(line));

for (const platform of ['express', 'fastify']) {
  test(`nestjs-pino on ${platform}: PinoLogger and Nest Logger lines carry their own request's id`, async () => {
    const nest = await startNest('12', 'pino-app.ts', [platform]);
    let output;
    try {
      await Promise.all(
        Array.from({ length: requests }, (_, n) => get(nest.port, `/orders/o${n}`, { 'x-request-id': `req-${n}` })),
      );
      await get(nest.port, '/orders/hostile', { 'x-request-id': '<script>alert(1)</script>' });
    } finally {
      output = await nest.stop();
    }
    const lines = pinoLines(output.stdout);
    let checked = 0;
    for (const line of lines) {
      const step = /^(pino|nest) (o\d+)$/.exec(line.msg ?? '');
      if (step === null) continue;
      const n = step[2].slice(1);
      assert.equal(line.requestId, `req-${n}`, `${line.msg}'s requestId`);
      // nestjs-pino 5.2's middleware binds pino-http's request logger on express; on Nest 12's fastify platform
      // its lines carry no `req`, but Ambient's fields are there all the same.
      if (step[1] === 'pino' && platform === 'express') {
        assert.equal(line.req?.id, `req-${n}`, `${line.msg}'s pino-http req.id`);
      }
      checked++;
    }
    assert.equal(checked, requests * 2, `the lines of every request\n${output.stdout.slice(0, 2000)}`);
    assert.ok(!output.stdout.includes('<script>'), 'an untrusted id reached a line');
    const hostile = lines.find((line) => line.msg === 'pino hostile');
    assert.match(hostile.requestId, /^[0-9a-f-]{36}$/);
    if (platform === 'express') assert.equal(hostile.req.id, hostile.requestId);
  });
}

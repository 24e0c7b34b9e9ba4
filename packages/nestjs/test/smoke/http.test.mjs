// AmbientModule under Nest's whole HTTP pipeline, on Nest 12 and 11, on express and on fastify: a real application in its
// own process on 127.0.0.1, 1,000 concurrent requests, every pipeline step writing a line through Nest's Logger
// (CorrelationConsoleLogger, JSON mode), and the lines read back from its stdout.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, describe, test } from 'node:test';
import { jsonLines, nestMajors, startNest } from './nest-process.mjs';

const requests = 1000;
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
after(() => agent.destroy());

function get(port, path, headers = {}) {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path, headers, agent }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode, headers: response.headers, body }));
    });
    request.on('error', reject);
  });
}

const succeeding = [
  'middleware',
  'guard',
  'interceptor-before',
  'pipe',
  'handler',
  'request-scoped',
  'transient',
  'service',
  'interceptor-after',
];
const failing = ['middleware', 'guard', 'interceptor-before', 'pipe', 'handler', 'filter', 'finish'];
const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';

for (const [major, platform] of nestMajors.flatMap((major) =>
  ['express', 'fastify'].map((platform) => [major, platform]),
)) {
  describe(`Nest ${major} on ${platform}`, () => {
    test(`${requests} concurrent requests: every step of the pipeline logs its own request's id, none crossed`, async () => {
      const nest = await startNest(major, 'server.ts', [platform]);
      let output;
      try {
        const responses = await Promise.all(
          Array.from({ length: requests }, (_, n) => {
            const headers = { 'x-request-id': `req-${n}` };
            if (n % 7 === 0) headers.traceparent = `00-${traceId}-00f067aa0ba902b7-01`;
            return get(nest.port, n % 10 === 0 ? `/orders/o${n}/fail` : `/orders/o${n}`, headers);
          }),
        );
        for (const [n, response] of responses.entries()) {
          assert.equal(response.headers['x-request-id'], `req-${n}`, `request ${n}'s echo`);
          assert.equal(response.status, n % 10 === 0 ? 500 : 200, `request ${n}: ${response.body}`);
          assert.equal(JSON.parse(response.body).requestId, `req-${n}`, `request ${n}'s answer`);
        }
      } finally {
        output = await nest.stop();
      }
      const steps = new Map();
      let crossed = 0;
      // Nest writes error lines (the filter's) to stderr, the others to stdout.
      for (const line of jsonLines(`${output.stdout}\n${output.stderr}`)) {
        const step = /^([\w-]+) o(\d+)$/.exec(line.message);
        if (step === null || line.context !== 'Orders') continue;
        const n = Number(step[2]);
        if (line.requestId !== `req-${n}`) crossed++;
        if (n % 7 === 0) assert.equal(line.traceId, traceId, `${line.message} has the request's trace`);
        else assert.equal(line.traceId, undefined, `${line.message} has no trace`);
        steps.set(n, [...(steps.get(n) ?? []), step[1]]);
      }
      assert.equal(crossed, 0, 'lines with another request id than their own');
      for (let n = 0; n < requests; n++) {
        assert.deepEqual(
          (steps.get(n) ?? []).sort(),
          [...(n % 10 === 0 ? failing : succeeding)].sort(),
          `the steps request ${n} logged`,
        );
      }
    });

    test('an invalid incoming id is neither echoed nor logged: the request gets a new UUIDv7', async () => {
      const nest = await startNest(major, 'server.ts', [platform]);
      let output;
      let response;
      try {
        response = await get(nest.port, '/orders/o1', { 'x-request-id': '<script>alert(1)</script>' });
      } finally {
        output = await nest.stop();
      }
      const echoed = response.headers['x-request-id'];
      assert.match(echoed, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.equal(JSON.parse(response.body).requestId, echoed);
      assert.ok(!`${output.stdout}${output.stderr}`.includes('<script>'), 'the hostile id reached a log line');
      const handler = jsonLines(output.stdout).find((line) => line.message === 'handler o1');
      assert.equal(handler.requestId, echoed);
    });

    test("CorrelationConsoleLogger's text mode writes requestId= after the context", async () => {
      const nest = await startNest(major, 'server.ts', [platform, 'text']);
      let output;
      try {
        await get(nest.port, '/orders/o5', { 'x-request-id': 'req-text-5' });
      } finally {
        output = await nest.stop();
      }
      assert.match(output.stdout, /LOG \[Orders\] requestId=req-text-5 handler o5\n/);
      // Lines outside any request (Nest starting up) carry no fields.
      assert.match(output.stdout, /LOG \[NestApplication\] Nest application successfully started/);
    });
  });
}

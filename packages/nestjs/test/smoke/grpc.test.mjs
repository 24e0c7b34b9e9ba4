// gRPC under AmbientModule across two real processes on 127.0.0.1 (Nest 12, @grpc/grpc-js): an HTTP request's
// call through Nest's gRPC client carries the request in the call's metadata, and the service's guard and
// method log in a scope caused by it.
import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';
import { freePort } from '../../../../scripts/services.mjs';
import { jsonLines, startNest } from './nest-process.mjs';

const calls = 10;
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function get(port, path, headers) {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, headers }, (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode, body }));
      })
      .on('error', reject);
  });
}

test('a gRPC call made in a request runs, guard included, in a scope caused by it', async () => {
  const url = `127.0.0.1:${await freePort()}`;
  const service = await startNest('12', 'grpc-app.ts', ['service', url]);
  const api = await startNest('12', 'grpc-app.ts', ['api', url]);
  try {
    const answers = await Promise.all(
      Array.from({ length: calls }, (_, n) =>
        get(api.port, `/orders/o${n}/price`, { 'x-request-id': `req-${n}`, 'x-correlation-id': `chain-${n}` }),
      ),
    );
    for (const answer of answers) assert.deepEqual([answer.status, JSON.parse(answer.body)], [200, { price: 42 }]);
  } finally {
    await api.stop();
    await service.stop();
  }
  const lines = jsonLines(service.output.stdout).filter((line) => /^(guard|priced) o\d+$/.test(line.message ?? ''));
  assert.equal(lines.length, calls * 2, service.output.stdout + service.output.stderr);
  for (const line of lines) {
    const n = line.message.split(' o')[1];
    assert.equal(line.causationId, `req-${n}`, line.message);
    assert.equal(line.correlationId, `chain-${n}`, line.message);
    assert.match(line.requestId, uuid);
    assert.equal(line.job?.system, 'grpc');
  }
  assert.equal(new Set(lines.map((line) => line.requestId)).size, calls, 'the guard and the method share a run');
});

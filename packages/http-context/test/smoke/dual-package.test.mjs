// Plain `node --test` on the built package: the ESM and CJS builds of @ambient/http-context open one
// requestContext scope that either build (and core's) can read.
import assert from 'node:assert/strict';
import http from 'node:http';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import * as esm from '@ambient/http-context';
import * as core from '@ambient/core';

const cjs = createRequire(import.meta.url)('@ambient/http-context');

test('ESM and CJS builds are different modules sharing one requestContext', () => {
  assert.notEqual(esm.httpContext, cjs.httpContext);
  assert.equal(esm.requestContext, cjs.requestContext);
  assert.equal(esm.requestContext, core.requestContext);
});

test('a scope opened by the CJS build is read by the ESM build and by core, after an await', async (t) => {
  const server = http.createServer(
    cjs.httpContext(async (_req, res) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      res.end(JSON.stringify([esm.requestContext.get('requestId'), core.requestContext.get('requestId')]));
    }),
  );
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  const response = await fetch(`http://127.0.0.1:${server.address().port}/`, {
    headers: { 'x-request-id': 'smoke-1' },
  });
  assert.equal(response.headers.get('x-request-id'), 'smoke-1');
  assert.deepEqual(await response.json(), ['smoke-1', 'smoke-1']);
});

test('typed option errors from either build are AmbientErrors with a code', () => {
  for (const build of [esm, cjs]) {
    assert.throws(
      () => build.httpContext(() => {}, { requestIdHeader: 1 }),
      (error) => {
        assert.ok(error instanceof core.AmbientError);
        assert.equal(error.code, 'ERR_AMBIENT_HTTP_INVALID_OPTION');
        return true;
      },
    );
  }
});

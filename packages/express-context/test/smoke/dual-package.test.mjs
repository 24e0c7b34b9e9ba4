// Plain `node --test` on the built package, outside jest: ESM and CJS builds of the adapter with real express.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import express from 'express';
import * as esm from '@ambient/express-context';

const cjs = createRequire(import.meta.url)('@ambient/express-context');

for (const [name, build] of [
  ['ESM', esm],
  ['CJS', cjs],
]) {
  test(`${name} build: a route reads the request id after an await, and the response echoes it`, async (t) => {
    const app = express();
    app.use(build.expressContext());
    app.get('/', async (_req, res) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      res.json({ seen: esm.requestContext.get('requestId') });
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    t.after(() => server.close());
    const response = await fetch(`http://127.0.0.1:${server.address().port}/`, {
      headers: { 'x-request-id': `smoke-${name}` },
    });
    assert.equal(response.headers.get('x-request-id'), `smoke-${name}`);
    assert.deepEqual(await response.json(), { seen: `smoke-${name}` });
  });
}

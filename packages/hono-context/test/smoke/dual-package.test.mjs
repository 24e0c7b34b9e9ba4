// Plain `node --test` on the built package, outside jest: ESM and CJS builds of the adapter with real Hono on
// @hono/node-server.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import * as esm from '@ambient/hono-context';

const cjs = createRequire(import.meta.url)('@ambient/hono-context');

for (const [name, build] of [
  ['ESM', esm],
  ['CJS', cjs],
]) {
  test(`${name} build: the handler reads the request id after an await; the response echoes it`, async (t) => {
    const app = new Hono();
    app.use(build.honoContext());
    app.get('/', async (c) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return c.json({ seen: esm.requestContext.get('requestId'), variable: c.var.requestId });
    });
    const server = await new Promise((resolve) => {
      const listening = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(listening));
    });
    t.after(() => server.close());
    const response = await fetch(`http://127.0.0.1:${server.address().port}/`, {
      headers: { 'x-request-id': `smoke-${name}` },
    });
    assert.equal(response.headers.get('x-request-id'), `smoke-${name}`);
    assert.deepEqual(await response.json(), { seen: `smoke-${name}`, variable: `smoke-${name}` });
  });
}

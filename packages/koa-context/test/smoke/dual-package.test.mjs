// Plain `node --test` on the built package, outside jest: ESM and CJS builds of the adapter with real koa.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import Koa from 'koa';
import * as esm from '@ambient/koa-context';

const cjs = createRequire(import.meta.url)('@ambient/koa-context');

for (const [name, build] of [
  ['ESM', esm],
  ['CJS', cjs],
]) {
  test(`${name} build: downstream middleware reads the request id after an await; the response echoes it`, async (t) => {
    const app = new Koa();
    app.use(build.koaContext());
    app.use(async (ctx) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      ctx.body = { seen: esm.requestContext.get('requestId') };
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

// Plain `node --test` on the built package, outside jest: ESM and CJS builds of the plugin with real fastify.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import fastify from 'fastify';
import * as esm from '@ambient/fastify-context';

const cjs = createRequire(import.meta.url)('@ambient/fastify-context');

for (const [name, build] of [
  ['ESM', esm],
  ['CJS', cjs],
]) {
  test(`${name} build: a POST handler reads the request id after the JSON body and an await`, async (t) => {
    const app = fastify();
    await app.register(build.fastifyContext);
    app.post('/', async (request) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return { seen: esm.requestContext.get('requestId'), body: request.body };
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    t.after(() => app.close());
    const response = await fetch(`http://127.0.0.1:${app.server.address().port}/`, {
      method: 'POST',
      headers: { 'x-request-id': `smoke-${name}`, 'content-type': 'application/json' },
      body: JSON.stringify({ n: 1 }),
    });
    assert.equal(response.headers.get('x-request-id'), `smoke-${name}`);
    assert.deepEqual(await response.json(), { seen: `smoke-${name}`, body: { n: 1 } });
  });
}

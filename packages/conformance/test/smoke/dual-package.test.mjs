// Plain `node --test` on the built package: both builds load, and the ESM build runs a case end to end
// against a tiny node:http harness with no context library at all (which must fail where context is needed).
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import * as esm from '@ambient/conformance';

const cjs = createRequire(import.meta.url)('@ambient/conformance');

test('both builds export the suite', () => {
  for (const build of [esm, cjs]) {
    assert.equal(typeof build.describeConformance, 'function');
    assert.equal(typeof build.runConformance, 'function');
  }
});

test('a harness with no context library fails the cases that need one', async () => {
  const http = await import('node:http');
  const harness = {
    name: 'node:http without context',
    async start(app) {
      const server = http.createServer(async (req, res) => {
        try {
          await app.middleware(req, res);
          const result = await app.handle({ req, res, path: new URL(req.url, 'http://x').pathname });
          res.writeHead(result.status, { 'content-type': 'application/json', 'x-request-id': 'fixed' }).end(JSON.stringify(result.body));
        } catch (error) {
          const result = app.handleError(error);
          res.writeHead(result.status, { 'content-type': 'application/json' }).end(JSON.stringify(result.body));
        }
      });
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
      return { port: server.address().port, close: () => new Promise((resolve) => { server.close(resolve); server.closeAllConnections(); }) };
    },
    readRequestId: () => undefined,
  };
  const cases = esm.conformanceCases(harness).filter((c) => ['one-id-everywhere', 'request-id-valid', 'keep-alive'].includes(c.id));
  assert.equal(cases.length, 3);
  const results = await esm.runConformance({ ...harness, start: harness.start });
  const byId = Object.fromEntries(results.map((r) => [r.id, r.outcome]));
  assert.equal(byId['one-id-everywhere'], 'fail');
  assert.equal(byId['request-id-valid'], 'fail');
  assert.equal(byId['values-from-middleware'], 'unsupported');
});

// Plain `node --test` on the built package, outside jest: the ESM and CJS builds write the same fields, and
// read the one requestContext shared by both builds of @ambient/core.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import pino from 'pino';
import { requestContext } from '@ambient/core';
import * as esm from '@ambient/pino-context';

const cjs = createRequire(import.meta.url)('@ambient/pino-context');

for (const [name, build] of [
  ['ESM', esm],
  ['CJS', cjs],
]) {
  test(`${name} build: lines inside a request carry its id after an await, lines outside carry nothing`, async () => {
    const lines = [];
    const stream = new Writable({ write: (chunk, _encoding, done) => done(null, lines.push(JSON.parse(chunk))) });
    const logger = pino({ mixin: build.correlationMixin() }, stream);
    await requestContext.run({ requestId: `smoke-${name}` }, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      logger.info('inside');
      build.requestLogger(pino(stream)).info('child');
    });
    logger.info('outside');
    assert.deepEqual(
      lines.map((line) => line.requestId),
      [`smoke-${name}`, `smoke-${name}`, undefined],
    );
  });
}

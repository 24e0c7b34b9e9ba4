// Where two servers' instructions a request differ, by function: each counted as the suite counts it (apps.mjs's
// serverInstructions, under callgrind with V8's --predictable), with V8's perf map so that JavaScript functions
// have names, then each function's own (exclusive) instructions a request, side by side, largest differences
// first. V8's compilers are in the profile too (named Runtime_Optimize..., Compile...): read past them.
//   node benchmarks/lab/profile.mjs fastify ambient echo-only [rows]
import { readFile, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { countedV8, countInstructions, fixed, printTable, twoAtATime } from '../harness.mjs';

const [app, first, second, rows = '30'] = process.argv.slice(2);
const requests = 2_000;
const server = fileURLToPath(new URL('../server.mjs', import.meta.url));

/** Each function's own instructions a request, JIT code named from /tmp/perf-<pid>.map. */
async function ownInstructions(variant) {
  const counted = await countInstructions(server, [app, variant], {
    warmUp: async (child) => {
      for (let i = 0; i < 5; i++) await child.burst({ connections: 1, amount: 1_000, timeout: 300 });
    },
    count: (child) => child.burst({ connections: 1, amount: requests, timeout: 300 }),
    units: requests,
    nodeFlags: [...countedV8, '--perf-basic-prof'],
  });
  const perfMap = `/tmp/perf-${counted.pid}.map`;
  // An address reused by later code keeps the last name the map gives it.
  const code = new Map();
  for (const line of (await readFile(perfMap, 'utf8').catch(() => '')).split('\n').filter(Boolean)) {
    const [start, , ...name] = line.split(' ');
    code.set(parseInt(start, 16), name.join(' '));
  }
  const jsName = (address) => code.get(address) ?? 'JIT code, unnamed';
  const names = new Map();
  const own = new Map();
  let current;
  let callCost = false;
  for (const line of (await readFile(counted.profile, 'utf8')).split('\n')) {
    const fn = /^fn=\((\d+)\)(?: (.*))?$/.exec(line);
    if (fn !== null) {
      if (fn[2] !== undefined) names.set(fn[1], /^0x[0-9a-f]+$/.test(fn[2]) ? jsName(parseInt(fn[2], 16)) : fn[2]);
      current = names.get(fn[1]);
    } else if (line.startsWith('cfn=(')) {
      const [, id, name] = /^cfn=\((\d+)\)(?: (.*))?$/.exec(line);
      if (name !== undefined) names.set(id, /^0x[0-9a-f]+$/.test(name) ? jsName(parseInt(name, 16)) : name);
    } else if (line.startsWith('calls=')) callCost = true;
    else if (/^\d/.test(line) || /^[+-]\d/.test(line)) {
      if (!callCost) own.set(current, (own.get(current) ?? 0) + Number(line.split(' ')[1]) / requests);
      callCost = false;
    }
  }
  await rm(counted.directory, { recursive: true, force: true });
  await rm(perfMap, { force: true });
  return { own, perUnit: counted.perUnit };
}

/** Where a function belongs: Ambient's packages, a framework or library, Node's own JavaScript, V8. */
function partOf(name) {
  if (/\/packages\//.test(name)) return `Ambient: ${/packages\/([^/]+)/.exec(name)[1]}`;
  if (/node_modules\//.test(name)) return `library: ${/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(name)[1]}`;
  if (/\bnode:/.test(name)) return "Node's JavaScript";
  if (/^Builtins_/.test(name)) return "V8's builtins";
  if (/^JS:|^JIT code/.test(name)) return 'JavaScript elsewhere (the benchmark, unnamed)';
  return "V8's runtime and collector, libc, libuv, Node's C++";
}

const [a, b] = await twoAtATime([first, second], ownInstructions);
const sum = (own, part) => [...own].reduce((total, [name, value]) => total + (partOf(name) === part ? value : 0), 0);
const parts = [...new Set([...a.own.keys(), ...b.own.keys()].map(partOf))];
const title = `${app}, Node ${process.version}: own instructions a request, ${first} (${fixed(a.perUnit)} in all, compiling left out) against ${second} (${fixed(b.perUnit)})`;
printTable(`${title}, by part`, [
  ['part', first, second, 'difference'],
  ...parts
    .map((part) => [part, sum(a.own, part), sum(b.own, part)])
    .sort((x, y) => Math.abs(y[1] - y[2]) - Math.abs(x[1] - x[2]))
    .map(([part, x, y]) => [part, fixed(x), fixed(y), fixed(x - y)]),
]);
const names = [...new Set([...a.own.keys(), ...b.own.keys()])];
const difference = (name) => (a.own.get(name) ?? 0) - (b.own.get(name) ?? 0);
names.sort((x, y) => Math.abs(difference(y)) - Math.abs(difference(x)));
const short = (name) => name.replace(/\(.*$/, '').replace(/^.*::/, '').replace('file:///work/main/', '').slice(0, 90);
printTable(`${title}, by function (inlining differs between the two: read with the parts)`, [
  ['function', first, second, 'difference'],
  ...names
    .slice(0, Number(rows))
    .map((name) => [short(name), fixed(a.own.get(name) ?? 0), fixed(b.own.get(name) ?? 0), fixed(difference(name))]),
]);

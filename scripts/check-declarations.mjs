// Compiles every published package's declarations (dist/esm and dist/cjs *.d.ts, as a user's TypeScript reads
// them, skipLibCheck off) against the oldest @types/node Ambient supports (the workspace's own, 20) and the
// newest, with TypeScript 5 (the workspace's) and the current major, 7 (both from tools/types-node, installed
// from its own lockfile like tools/node-matrix): a declaration that names a Node generic can compile on one line
// and not the next (@types/node 26 swapped TracingChannel's parameters). tstyche's type tests cannot load
// TypeScript 7's native compiler, so they run on 5 only.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const newest = join('tools', 'types-node');
if (!existsSync(join(newest, 'node_modules', '@types', 'node'))) {
  spawnSync('npm', ['ci', '--prefix', newest, '--no-audit', '--no-fund'], { stdio: 'inherit' });
}

/** Every .d.ts below `dir`. */
function declarations(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.d.ts'))
    .map((entry) => resolve(entry.parentPath ?? entry.path, entry.name));
}

const files = readdirSync('packages')
  .map((folder) => join('packages', folder))
  .filter((dir) => !JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).private)
  .flatMap((dir) => [...declarations(join(dir, 'dist', 'esm')), ...declarations(join(dir, 'dist', 'cjs'))]);

const versionOf = (folder) => JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')).version;
const newestVersion = { version: versionOf(join(newest, 'node_modules', '@types', 'node')) };
const compilers = [
  [`TypeScript ${versionOf(join('node_modules', 'typescript'))}`, [process.execPath, tsc]],
  [
    `TypeScript ${versionOf(join(newest, 'node_modules', 'typescript'))}`,
    [join(newest, 'node_modules', '.bin', 'tsc')],
  ],
];
const lines = [
  ['20 (the workspace)', resolve('node_modules', '@types')],
  [newestVersion.version, resolve(newest, 'node_modules', '@types')],
];
const failed = [];
const work = mkdtempSync(join(tmpdir(), 'ambient-declarations-'));
try {
  for (const [index, [version, typeRoot, [compiler, command]]] of lines
    .flatMap(([version, typeRoot]) => compilers.map((each) => [version, typeRoot, each]))
    .entries()) {
    const config = join(work, `tsconfig.${index}.json`);
    const compilerOptions = {
      noEmit: true,
      strict: true,
      skipLibCheck: false,
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'es2022',
      types: ['node'],
      typeRoots: [typeRoot],
    };
    writeFileSync(config, JSON.stringify({ compilerOptions, files }));
    const { stdout, stderr } = spawnSync(command[0], [...command.slice(1), '-p', config], { encoding: 'utf8' });
    // Other libraries' own declarations are theirs to fix: only errors in Ambient's count.
    // A configuration error (TS5xxx, TS6xxx) fails the check too: nothing would have been compiled.
    const ours = `${stdout}${stderr}`
      .split('\n')
      .filter((line) => line.startsWith('packages/') || /error TS[56]\d{3}/.test(line));
    const verdict = ours.length === 0 ? 'compile' : 'FAIL';
    console.log(`${compiler}, @types/node ${version}: ${files.length} declaration files ${verdict}`);
    if (ours.length > 0) {
      console.error(ours.join('\n'));
      failed.push(`${compiler} with @types/node ${version}`);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
if (failed.length > 0) {
  console.error(`declarations fail to compile: ${failed.join('; ')}`);
  process.exit(1);
}

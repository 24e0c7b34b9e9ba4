// Compiles every published package's declarations (dist/esm and dist/cjs *.d.ts, as a user's TypeScript reads
// them, skipLibCheck off) against the oldest @types/node Ambient supports (the workspace's own, 20) and the
// newest (tools/types-node, installed from its own lockfile like tools/node-matrix): a declaration that names a
// Node generic can compile on one line and not the next (@types/node 26 swapped TracingChannel's parameters).
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

const newestVersion = JSON.parse(readFileSync(join(newest, 'node_modules', '@types', 'node', 'package.json'), 'utf8'));
const lines = [
  ['20 (the workspace)', resolve('node_modules', '@types')],
  [newestVersion.version, resolve(newest, 'node_modules', '@types')],
];
const failed = [];
const work = mkdtempSync(join(tmpdir(), 'ambient-declarations-'));
try {
  for (const [index, [version, typeRoot]] of lines.entries()) {
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
    const { stdout, stderr } = spawnSync(process.execPath, [tsc, '-p', config], { encoding: 'utf8' });
    // Other libraries' own declarations are theirs to fix: only errors in Ambient's count.
    const ours = `${stdout}${stderr}`.split('\n').filter((line) => line.startsWith('packages/'));
    console.log(`@types/node ${version}: ${files.length} declaration files ${ours.length === 0 ? 'compile' : 'FAIL'}`);
    if (ours.length > 0) {
      console.error(ours.join('\n'));
      failed.push(version);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
if (failed.length > 0) {
  console.error(`declarations fail to compile with @types/node ${failed.join(', ')}`);
  process.exit(1);
}

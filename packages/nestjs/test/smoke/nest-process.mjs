// Starts a Nest application of test/fixtures as a process of its own, its TypeScript (decorators and their
// metadata included) compiled as it loads by @swc-node/register, configured by the package's tsconfig.json. Nest
// 12 ships ES modules only, which jest's module system cannot load; these tests run on plain node --test.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const nest11Dir = join(packageDir, '..', '..', 'tools', 'nest11');

/** The Nest majors the tests run on: the workspace's 12, and 11 from tools/nest11 (installed once, here). */
export const nestMajors = ['12', '11'];

function installNest11() {
  if (existsSync(join(nest11Dir, 'node_modules', '@nestjs', 'core'))) return;
  const { status } = spawnSync('npm', ['ci', '--prefix', nest11Dir, '--no-audit', '--no-fund'], { stdio: 'inherit' });
  if (status !== 0) throw new Error(`npm ci in ${nest11Dir} failed`);
}

/**
 * Runs `fixture` (a file of test/fixtures) with `args` on Nest `major`; resolves once it printed `{"port":N}`, with
 * the port, its output so far and to come, and `stop()`, which resolves to everything it wrote once it exited.
 */
export async function startNest(major, fixture, args = []) {
  if (major === '11') installNest11();
  const onNest11 = major === '11' ? ['--import', join(packageDir, 'test', 'smoke', 'nest11.mjs')] : [];
  const child = spawn(
    process.execPath,
    [
      '--import',
      '@swc-node/register/esm-register',
      ...onNest11,
      join(packageDir, 'test', 'fixtures', fixture),
      ...args,
    ],
    {
      cwd: packageDir,
      env: { ...process.env, SWC_NODE_PROJECT: join(packageDir, 'tsconfig.json') },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const output = { stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (chunk) => (output.stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk) => (output.stderr += chunk));
  const exited = once(child, 'exit');
  const port = await new Promise((resolve, reject) => {
    const look = () => {
      const line = /^\{"port":(\d+)\}$/m.exec(output.stdout);
      if (line !== null) resolve(Number(line[1]));
    };
    child.stdout.on('data', look);
    exited.then(([code]) => reject(new Error(`${fixture} exited with ${code} before listening\n${output.stderr}`)));
  });
  return {
    port,
    output,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      return output;
    },
  };
}

/** The JSON lines of `stdout`, each parsed; other lines left out. */
export function jsonLines(stdout) {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{"level"'))
    .map((line) => JSON.parse(line));
}

// A private npm registry on 127.0.0.1 holding every package of this repository, published the way a release
// publishes them (`lerna publish from-package`, from the built packages): Verdaccio from tools/registry, with its
// storage in a temporary folder and no uplink, so it serves `@ambient/*` and nothing else. An application points
// the `@ambient` scope at it and installs everything else from npm as usual.
//
//   npm run registry                 starts it on 127.0.0.1:4873 (or PORT), publishes, and serves until Ctrl-C
//   import { startRegistry }         what the release rehearsal (scripts/release-rehearsal.mjs) does on a free port
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from './lanes.mjs';
import { freePort } from './services.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tools = join(root, 'tools', 'registry');
const verdaccio = join(tools, 'node_modules', 'verdaccio', 'bin', 'verdaccio');
// Verdaccio 6.10 wants Node 22 or later; on an older running node, the matrix's Node 24 runs it.
const registryNode =
  Number(process.versions.node.split('.')[0]) >= 22
    ? process.execPath
    : join(root, 'tools', 'node-matrix', 'node_modules', 'node24', 'bin', 'node');
const readyWithinMs = 60_000;

/** Installs what the registry runs on, from the lockfiles of tools/registry and tools/node-matrix, once. */
function install() {
  for (const [folder, installed] of [
    [tools, verdaccio],
    [join(root, 'tools', 'node-matrix'), registryNode],
  ]) {
    if (existsSync(installed)) continue;
    const { status } = spawnSync('npm', ['ci', '--prefix', folder, '--no-audit', '--no-fund'], { stdio: 'inherit' });
    if (status !== 0) throw new Error(`registry: npm ci in ${folder} failed`);
  }
}

/** The environment npm and lerna run in: the caller's, without npm's own `npm_config_*` from `npm run`. */
export function npmEnvironment(extra = {}) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_config_/i.test(key)));
  return { ...env, ...extra };
}

async function waitUntilReady(url, child, log) {
  const deadline = Date.now() + readyWithinMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`registry: Verdaccio exited with ${child.exitCode}\n${log()}`);
    try {
      const response = await fetch(new URL('-/ping', url));
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`registry: Verdaccio did not answer ${url}-/ping within ${readyWithinMs} ms\n${log()}`);
}

/**
 * A copy of the repository as a release commit holds it, in `folder`/release: lerna.json, and each package's
 * package.json with the files it publishes (its `files`: the built dist, src, README, CHANGELOG, LICENSE),
 * committed to a git repository of its own. lerna publishes only from a clean working tree; the copy lets the
 * rehearsal publish what is on disk now, uncommitted changes included, through lerna's whole path.
 */
function releaseCopy(folder) {
  const release = join(folder, 'release');
  mkdirSync(release);
  cpSync(join(root, 'lerna.json'), join(release, 'lerna.json'));
  writeFileSync(join(release, 'package.json'), '{ "name": "ambient-release", "private": true }\n');
  for (const name of readdirSync(join(root, 'packages'))) {
    const from = join(root, 'packages', name);
    const manifest = JSON.parse(readFileSync(join(from, 'package.json'), 'utf8'));
    for (const file of ['package.json', ...manifest.files]) {
      if (existsSync(join(from, file)))
        cpSync(join(from, file), join(release, 'packages', name, file), { recursive: true });
    }
  }
  const git = (...args) => {
    const { status, stderr } = spawnSync('git', args, { cwd: release, encoding: 'utf8' });
    if (status !== 0) throw new Error(`registry: git ${args.join(' ')} failed in ${release}\n${stderr}`);
  };
  git('init', '--quiet');
  git('add', '--all');
  git(
    '-c',
    'user.name=Ambient release rehearsal',
    '-c',
    'user.email=rehearsal@127.0.0.1',
    'commit',
    '--quiet',
    '-m',
    'release',
  );
  return release;
}

/** Signs up the one user the configuration allows, and returns the token npm and lerna publish with. */
async function signUp(url) {
  const name = 'ambient-release';
  const response = await fetch(new URL(`-/user/org.couchdb.user:${name}`, url), {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, password: `rehearsal-${process.pid}-${Date.now()}` }),
  });
  const body = await response.json();
  if (!response.ok || typeof body.token !== 'string') {
    throw new Error(`registry: sign-up answered ${response.status} ${JSON.stringify(body)}`);
  }
  return body.token;
}

/**
 * Starts the registry and publishes every public package to it with lerna; resolves to its `url` and `stop()`.
 * The packages must be built (`npm run build`).
 */
export async function startRegistry({ port } = {}) {
  install();
  const folder = mkdtempSync(join(tmpdir(), 'ambient-registry-'));
  const chosen = port ?? (await freePort());
  const url = `http://127.0.0.1:${chosen}/`;
  writeFileSync(
    join(folder, 'config.yaml'),
    [
      `storage: ${join(folder, 'storage')}`,
      'auth:',
      '  htpasswd:',
      `    file: ${join(folder, 'htpasswd')}`,
      '    max_users: 1',
      'uplinks: {}',
      'packages:',
      "  '@ambient/*':",
      '    access: $all',
      '    publish: $authenticated',
      "  '**':",
      '    access: $all',
      'log: { type: stdout, format: pretty, level: warn }',
      '',
    ].join('\n'),
  );
  const child = spawn(registryNode, [verdaccio, '--config', join(folder, 'config.yaml'), '--listen', url], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk) => (output += chunk));
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill();
      await once(child, 'exit');
    }
    rmSync(folder, { recursive: true, force: true });
  };
  try {
    await waitUntilReady(url, child, () => output);
    const token = await signUp(url);
    const userconfig = join(folder, 'npmrc');
    writeFileSync(userconfig, `//127.0.0.1:${chosen}/:_authToken=${token}\n`);
    const lerna = join(root, 'node_modules', 'lerna', 'dist', 'cli.js');
    const published = await run(
      process.execPath,
      [lerna, 'publish', 'from-package', '--registry', url, '--yes', '--no-private', '--loglevel', 'warn'],
      { cwd: releaseCopy(folder), env: npmEnvironment({ npm_config_userconfig: userconfig }) },
    );
    if (published.status !== 0) {
      const written = published.output.map(([, chunk]) => chunk.toString()).join('');
      throw new Error(`registry: lerna publish failed\n${written}`);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, stop };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { url, stop } = await startRegistry({ port: Number(process.env.PORT ?? 4873) });
  console.log(`Every @ambient package is published to ${url} (Ctrl-C stops it). In your project:

  npm config set @ambient:registry ${url} --location=project
  npm install @ambient/express-context express     # or any package README's install line, as written
`);
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => stop().then(() => process.exit(0)));
}

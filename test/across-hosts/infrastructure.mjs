// Host d, the infrastructure: a private redis-server, nats-server with JetStream, and a PostgreSQL cluster made by
// initdb in a temporary folder, each from this machine's binaries, listening on host d's address only. The
// machine's shared services are not touched.
import { spawnSync } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startIn } from './processes.mjs';

const postgresUser = 'postgres';
/** Where host d's servers listen, on its address. */
export const infrastructurePorts = { redis: 6379, nats: 4222, postgres: 5432 };

/** The folder of PostgreSQL's server binaries (the newest installed), or undefined. */
function postgresBin() {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const [newest] = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  const bin = newest === undefined ? undefined : join(root, newest, 'bin');
  return bin !== undefined && existsSync(join(bin, 'initdb')) ? bin : undefined;
}

function onPath(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
}

/** What this machine lacks to run host d, or undefined. */
export function infrastructureUnavailable() {
  const missing = ['redis-server', 'nats-server', 'runuser'].filter((command) => !onPath(command));
  if (postgresBin() === undefined) missing.push('PostgreSQL server binaries (/usr/lib/postgresql/*/bin/initdb)');
  if (spawnSync('id', ['-u', postgresUser]).status !== 0) missing.push(`a '${postgresUser}' user to run PostgreSQL as`);
  return missing.length === 0 ? undefined : `missing: ${missing.join(', ')}`;
}

/**
 * Starts the three servers in `namespace` at `address` (on `infrastructurePorts`); resolves to `{ stop() }` once
 * all accept connections, or stops those that started and throws.
 */
export async function startInfrastructure(namespace, address, folder) {
  const data = join(folder, 'postgres');
  mkdirSync(data);
  chownSync(
    data,
    Number(spawnSync('id', ['-u', postgresUser]).stdout),
    Number(spawnSync('id', ['-g', postgresUser]).stdout),
  );
  const bin = postgresBin();
  const initdb = spawnSync(
    'runuser',
    ['-u', postgresUser, '--', join(bin, 'initdb'), '-D', join(data, 'cluster'), '--auth=trust', '-U', postgresUser],
    { encoding: 'utf8' },
  );
  if (initdb.status !== 0) throw new Error(`initdb failed: ${initdb.stderr}`);
  appendFileSync(join(data, 'cluster', 'pg_hba.conf'), `host all all ${address}/24 trust\n`);
  mkdirSync(join(folder, 'nats'));
  const starting = await Promise.allSettled([
    startIn(
      namespace,
      'redis-server',
      [
        '--bind',
        address,
        '--port',
        String(infrastructurePorts.redis),
        '--save',
        '',
        '--appendonly',
        'no',
        '--protected-mode',
        'no',
        '--dir',
        folder,
      ],
      { name: 'redis', folder, ready: /Ready to accept connections/ },
    ),
    startIn(
      namespace,
      'nats-server',
      ['-a', address, '-p', String(infrastructurePorts.nats), '-js', '-sd', join(folder, 'nats')],
      {
        name: 'nats',
        folder,
        ready: /Server is ready/,
      },
    ),
    startIn(
      namespace,
      join(bin, 'postgres'),
      [
        '-D',
        join(data, 'cluster'),
        '-k',
        data,
        '-h',
        address,
        '-p',
        String(infrastructurePorts.postgres),
        '-c',
        'fsync=off',
        '-c',
        'synchronous_commit=off',
        '-c',
        'max_connections=60',
      ],
      { name: 'postgres', folder, user: postgresUser, ready: /ready to accept connections/ },
    ),
  ]);
  const started = starting.filter((each) => each.status === 'fulfilled').map((each) => each.value);
  const stop = () => Promise.all(started.map((server) => server.stop()));
  const failed = starting.find((each) => each.status === 'rejected');
  if (failed !== undefined) {
    await stop();
    throw failed.reason;
  }
  return { stop };
}

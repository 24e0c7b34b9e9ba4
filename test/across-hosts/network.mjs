// Four hosts on this machine: Linux network namespaces a, b, c and d, each with one veth whose other end is a port
// of a bridge in a fifth namespace, the switch. Nothing is added to the machine's own namespace, so no traffic of
// the test leaves the namespaces it made, and deleting them removes every link. Names carry the test's pid, so a
// run that was killed before it cleaned up is recognised by the next one and removed.
import { execFileSync, spawnSync } from 'node:child_process';

const subnet = '10.231.0';
/** Each host's address on the bridge. */
export const addresses = { a: `${subnet}.1`, b: `${subnet}.2`, c: `${subnet}.3`, d: `${subnet}.4` };
const hosts = Object.keys(addresses);
const prefix = 'ambient-hosts-';

const ip = (...args) => execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });

/** Does process `pid` still run? */
export function pidAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/** The namespaces of this machine, by name. */
function namespaces() {
  const listed = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout ?? '';
  return listed
    .split('\n')
    .map((line) => line.split(' ')[0])
    .filter(Boolean);
}

/** Kills whatever still runs in namespace `name`, then deletes it. */
function removeNamespace(name) {
  const pids = (spawnSync('ip', ['netns', 'pids', name], { encoding: 'utf8' }).stdout ?? '').split('\n');
  for (const pid of pids.filter(Boolean)) {
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      // gone already
    }
  }
  spawnSync('ip', ['netns', 'del', name]);
}

/** Can this process make namespaces here? The reason it cannot, or undefined. */
export function namespacesUnavailable() {
  if (process.platform !== 'linux') return `network namespaces are Linux's (this is ${process.platform})`;
  if (process.getuid?.() !== 0) return 'making network namespaces needs root';
  const probe = `${prefix}${process.pid}-probe`;
  const made = spawnSync('ip', ['netns', 'add', probe], { encoding: 'utf8' });
  if (made.error !== undefined || made.status !== 0) {
    return `ip netns add failed: ${made.error?.message ?? made.stderr.trim()}`;
  }
  spawnSync('ip', ['netns', 'del', probe]);
  return undefined;
}

/**
 * Makes the four hosts and the switch. Returns `{ namespace(host), linkDown(host), linkUp(host), remove() }`:
 * `namespace` names a host's namespace for `ip netns exec`; `linkDown`/`linkUp` take the host's switch port down
 * and up (its own end stays up, as a pulled cable leaves it); `remove` kills what runs there and deletes all five,
 * and may be called more than once.
 */
export function makeHosts() {
  // Namespaces left by a run that never cleaned up (killed with SIGKILL, say): their pid is gone.
  for (const name of namespaces()) {
    const owner = Number(name.slice(prefix.length).split('-')[0]);
    if (name.startsWith(prefix) && Number.isInteger(owner) && !pidAlive(owner)) removeNamespace(name);
  }
  const name = (host) => `${prefix}${process.pid}-${host}`;
  const made = [];
  const remove = () => {
    for (const namespace of made.splice(0).reverse()) removeNamespace(namespace);
  };
  try {
    for (const host of ['switch', ...hosts]) {
      ip('netns', 'add', name(host));
      made.push(name(host));
      ip('-n', name(host), 'link', 'set', 'lo', 'up');
    }
    const inSwitch = (...args) => ip('-n', name('switch'), ...args);
    inSwitch('link', 'add', 'bridge', 'type', 'bridge');
    inSwitch('link', 'set', 'bridge', 'up');
    for (const host of hosts) {
      inSwitch('link', 'add', `port-${host}`, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', name(host));
      inSwitch('link', 'set', `port-${host}`, 'master', 'bridge');
      inSwitch('link', 'set', `port-${host}`, 'up');
      ip('-n', name(host), 'addr', 'add', `${addresses[host]}/24`, 'dev', 'eth0');
      ip('-n', name(host), 'link', 'set', 'eth0', 'up');
    }
  } catch (error) {
    remove();
    throw error;
  }
  // However the test process ends, by an uncaught error or interrupted, the namespaces go with it (and what runs
  // in them); one killed with SIGKILL leaves them to the next run, above.
  process.once('exit', remove);
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      remove();
      process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
    });
  }
  return {
    namespace: name,
    linkDown: (host) => ip('-n', name('switch'), 'link', 'set', `port-${host}`, 'down'),
    linkUp: (host) => ip('-n', name('switch'), 'link', 'set', `port-${host}`, 'up'),
    remove,
  };
}

// The processes of the hosts: each started inside its host's namespace by `ip netns exec` (which execs the
// command, so the pid is the process's own and a signal reaches it; under `runuser`, the pid is runuser's, which
// passes SIGTERM on), its output kept in a file of the run's folder for the failure message, and resolved once it
// printed the line that says it is ready.
import { spawn } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Starts `command args` in `namespace`. Resolves once a line of its output matches `ready` (within `readyMs`) to
 * `{ name, pid, exited, lines, kill(signal), stop() }`: `exited` resolves with the exit code or signal, `lines`
 * are the output lines so far, `stop()` sends SIGTERM and waits (SIGKILL after 10 s).
 */
export async function startIn(namespace, command, args, { name, folder, env = {}, ready, readyMs = 30_000, user }) {
  const argv = [
    'netns',
    'exec',
    namespace,
    ...(user === undefined ? [] : ['runuser', '-u', user, '--']),
    command,
    ...args,
  ];
  const child = spawn('ip', argv, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const file = join(folder, `${name}.log`);
  const out = createWriteStream(file, { flags: 'a' });
  const lines = [];
  let matched;
  const isReady = new Promise((resolve) => (matched = resolve));
  for (const stream of [child.stdout, child.stderr]) {
    let rest = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk) => {
      out.write(chunk);
      const parts = (rest + chunk).split('\n');
      rest = parts.pop();
      for (const line of parts) {
        lines.push(line);
        if (ready.test(line)) matched(line);
      }
    });
  }
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
  child.once('close', () => out.end());
  const tail = () => readFileSync(file, 'utf8').split('\n').slice(-15).join('\n');
  let timer;
  const outcome = await Promise.race([
    isReady.then((line) => ({ line })),
    exited.then((end) => ({ end })),
    new Promise((resolve) => (timer = setTimeout(() => resolve({ timeout: true }), readyMs))),
  ]);
  clearTimeout(timer);
  if (outcome.line === undefined) {
    child.kill('SIGKILL');
    const why = outcome.timeout ? `was not ready in ${readyMs} ms` : `ended (${outcome.end}) before it was ready`;
    throw new Error(`${name} ${why}; its output:\n${tail()}`);
  }
  return {
    name,
    pid: child.pid,
    exited,
    lines,
    kill: (signal) => child.kill(signal),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(force);
    },
  };
}

// The real services a test needs: present, or the test is skipped loudly; under CI=true absence is a failure.
import net from 'node:net';

/** Resolves to undefined when 127.0.0.1:`port` accepts a connection, else to the reason for skipping. */
export async function serviceSkip(name, port) {
  const reachable = await new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(2000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
  if (reachable) return undefined;
  const reason = `${name} is not reachable on 127.0.0.1:${port}`;
  if (process.env.CI === 'true') throw new Error(`${reason}, and CI=true requires it`);
  console.warn(`\n  SKIPPED: ${reason}; start it to run these tests\n`);
  return reason;
}

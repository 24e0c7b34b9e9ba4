// The services of this machine that tests need (README: Redis, PostgreSQL, MariaDB, RabbitMQ): present, or the
// test is skipped loudly; under CI=true absence is a failure. Shared by the smoke tests and the README examples.
import net from 'node:net';

/** Where each service listens on 127.0.0.1. */
export const services = { redis: 6379, postgres: 5432, mariadb: 3306, rabbitmq: 5672 };

/** Does 127.0.0.1:`port` accept a connection (within five seconds)? */
export function reachable(port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(5000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Resolves to undefined when `service` is reachable, else to the reason for skipping (throws under CI=true). */
export async function serviceSkip(service) {
  const port = services[service];
  if (await reachable(port)) return undefined;
  const reason = `${service} is not reachable on 127.0.0.1:${port}`;
  if (process.env.CI === 'true') throw new Error(`${reason}, and CI=true requires it`);
  console.warn(`\n  SKIPPED: ${reason}; start it to run these tests\n`);
  return reason;
}

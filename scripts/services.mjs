// The services of this machine that tests need (README: Redis, PostgreSQL, MariaDB, RabbitMQ, NATS, Mosquitto): present, or the
// test is skipped loudly; under CI=true absence is a failure. Present but refusing the tests' login (a changed
// password, say) fails at once, naming the service, the reason and the fix, rather than in a timeout per case.
// Shared by the smoke tests, the README examples and the Node matrix's summary.
import { once } from 'node:events';
import { createRequire } from 'node:module';
import net from 'node:net';

/**
 * A TCP port on 127.0.0.1 that nothing listens on now, for a server that cannot report the port it got for
 * port 0 (Verdaccio, a gRPC microservice started by its options).
 */
export async function freePort() {
  const server = net.createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  server.close();
  await once(server, 'close');
  return port;
}

/** Where each service listens on 127.0.0.1. */
export const services = { redis: 6379, postgres: 5432, mariadb: 3306, rabbitmq: 5672, nats: 4222, mosquitto: 1883 };

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

const require = createRequire(import.meta.url);
const within = (ms, promise) =>
  Promise.race([promise, new Promise((_, reject) => setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms))]);

/** How each service's login is tried (NATS and Mosquitto take anonymous clients here), with the credentials the tests use (README), and how to fix a refusal. */
const logins = {
  postgres: {
    as: 'user postgres, database test (trust auth)',
    async tryIt(port) {
      const client = new (require('pg').Client)({ host: '127.0.0.1', port, user: 'postgres', database: 'test' });
      try {
        await within(5000, client.connect());
      } finally {
        client.end().catch(() => undefined);
      }
    },
  },
  mariadb: {
    as: 'user root with no password, database test',
    async tryIt(port) {
      const connection = await within(
        5000,
        require('mysql2/promise').createConnection({ host: '127.0.0.1', port, user: 'root', database: 'test' }),
      );
      await connection.end();
    },
  },
  redis: {
    as: 'no password',
    async tryIt(port) {
      const socket = net.connect({ host: '127.0.0.1', port });
      try {
        const reply = await within(
          5000,
          new Promise((resolve, reject) => {
            socket.once('error', reject);
            socket.once('data', (data) => resolve(String(data)));
            socket.write('PING\r\n');
          }),
        );
        if (!reply.startsWith('+PONG')) throw new Error(reply.trim());
      } finally {
        socket.destroy();
      }
    },
  },
  rabbitmq: {
    as: 'guest/guest',
    async tryIt(port) {
      const connection = await within(5000, require('amqplib').connect(`amqp://guest:guest@127.0.0.1:${port}`));
      await connection.close();
    },
  },
};

/**
 * Why `service`, reachable, refuses the tests' login, or undefined where it takes it: the message names the
 * service, the reason and what to fix (the service's settings as the README gives them, never the tests').
 */
export async function loginRefusal(service, port = services[service]) {
  const login = logins[service];
  if (login === undefined) return undefined;
  try {
    await login.tryIt(port);
    return undefined;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return (
      `${service} on 127.0.0.1:${port} refused the tests' login (${login.as}): ${reason}; ` +
      `set the service back to the README's settings`
    );
  }
}

/**
 * Resolves to undefined when `service` is reachable and takes the tests' login, else to the reason for skipping
 * (throws under CI=true). A refused login throws everywhere: the service is there but misconfigured.
 */
export async function serviceSkip(service) {
  const port = services[service];
  if (await reachable(port)) {
    const refusal = await loginRefusal(service);
    if (refusal !== undefined) throw new Error(refusal);
    return undefined;
  }
  const reason = `${service} is not reachable on 127.0.0.1:${port}`;
  if (process.env.CI === 'true') throw new Error(`${reason}, and CI=true requires it`);
  console.warn(`\n  SKIPPED: ${reason}; start it to run these tests\n`);
  return reason;
}

// `npm start`: the Hono users service on 127.0.0.1:$PORT (default 3000), logging JSON to stdout.
// With REDIS_URL set (e.g. redis://127.0.0.1:6379) users come from Redis, otherwise from memory.
import { serve } from '@hono/node-server';
import pino from 'pino';
import { correlationMixin } from '@ambient/pino-context';
import { createUsersStore } from '@ambient/example-users-store';
import { createApp } from './app.mjs';

const logger = pino({ level: process.env.LOG_LEVEL ?? 'debug', mixin: correlationMixin() });
const store = await createUsersStore({ logger });
const app = createApp({ store, logger });
const server = serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 3000), hostname: '127.0.0.1' }, (info) =>
  logger.info({ port: info.port, store: store.kind }, 'hono-users listening'),
);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => server.close(() => store.close()));
}

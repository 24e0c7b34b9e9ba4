// The store behind the three example apps. In memory by default; Redis through ioredis when a URL is given
// (REDIS_URL). Both log through the logger they are given at startup, never through a request: the request
// id on their lines comes from the request's scope, whichever request is asking.
import { Redis } from 'ioredis';

/** The users every store starts with. User 13's record is corrupt on purpose: reading it is the demo's error. */
export const seedUsers = [
  { id: '1', name: 'Ada Lovelace', email: 'ada@example.org' },
  { id: '2', name: 'Grace Hopper', email: 'grace@example.org' },
  { id: '3', name: 'Margaret Hamilton', email: 'margaret@example.org' },
  { id: '4', name: 'Radia Perlman', email: 'radia@example.org' },
];
const corruptRecord = ['13', '{"id":"13","name":"Trunc'];

/** A user id is 1 to 10 digits without a leading zero; anything else is a 400 before the store is asked. */
export function isUserId(value) {
  return typeof value === 'string' && /^[1-9][0-9]{0,9}$/.test(value);
}

export class CorruptRecordError extends Error {
  code = 'ERR_USERS_CORRUPT_RECORD';
  constructor(id, cause) {
    super(`user ${id}: the stored record is not valid JSON`, { cause });
    this.name = 'CorruptRecordError';
  }
}

function parseRecord(id, text) {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CorruptRecordError(id, error);
  }
}

/** An in-memory store: a Map of JSON texts, so that it fails the way a real store does on a corrupt record. */
export function createMemoryStore({ logger, latencyMs = 2 }) {
  const records = new Map([...seedUsers.map((user) => [user.id, JSON.stringify(user)]), corruptRecord]);
  return {
    kind: 'memory',
    async findUser(id) {
      logger.debug({ id, store: 'memory' }, 'store lookup');
      await new Promise((resolve) => setTimeout(resolve, latencyMs)); // a real store's round trip
      const text = records.get(id);
      return text === undefined ? undefined : parseRecord(id, text);
    },
    async close() {},
  };
}

/** A Redis store through ioredis; `prefix` keeps a test's keys apart from anything else in the database. */
export async function createRedisStore({ logger, url, prefix = 'ambient-example:users:' }) {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2000 });
  await redis.connect();
  const seeding = redis.multi();
  for (const user of seedUsers) seeding.set(prefix + user.id, JSON.stringify(user));
  seeding.set(prefix + corruptRecord[0], corruptRecord[1]);
  await seeding.exec();
  return {
    kind: 'redis',
    async findUser(id) {
      logger.debug({ id, store: 'redis' }, 'store lookup');
      const text = await redis.get(prefix + id);
      return text === null ? undefined : parseRecord(id, text);
    },
    async close() {
      const keys = [...seedUsers.map((user) => user.id), corruptRecord[0]].map((id) => prefix + id);
      await redis.del(...keys);
      await redis.quit();
    },
  };
}

/** Redis when `redisUrl` (default: the REDIS_URL environment variable) is set, memory otherwise. */
export function createUsersStore({ logger, redisUrl = process.env.REDIS_URL, ...options }) {
  return redisUrl
    ? createRedisStore({ logger, url: redisUrl, ...options })
    : Promise.resolve(createMemoryStore({ logger, ...options }));
}

// ioredis 6 and node-redis (redis 6.3) on the real Redis at 127.0.0.1:6379. Both publish TracingChannel events
// (ioredis 5.11+, @redis/client 5.12+): guardDrivers opens their sockets outside any request through
// `ioredis:connect` / `node-redis:connect`, and patches node-redis's client pool, whose queued execute(fn) runs
// fn from whoever released a client. Their command callbacks and promises keep the caller's context already.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import * as redis from 'redis';
import { runInRoot } from '@ambient/core';
import {
  canCollect,
  collectGarbage,
  everyRequest,
  expectEachSawItself,
  expectNoneSawItself,
  inRequest,
  inTrackedRequest,
  openedResources,
  recordRow,
  requestIds,
  seen,
  summarize,
} from './helpers/requests.js';
import { describeEachPhase, expectCollectedOnlyWithGuard } from './helpers/phases.js';
import { describeWithServices, redisConfig, redisUrl, versionOf } from './helpers/services.js';

const ioredis = versionOf('ioredis');
const nodeRedis = versionOf('redis');
/** Keys of this run only, removed in afterAll. */
const prefix = `ambient-drivers-jest-${randomUUID()}`;
const key = `${prefix}:key`;
/** A list that never exists: BLPOP on it waits its full timeout, holding the connection. */
const emptyList = `${prefix}:empty-list`;

describeWithServices(['redis'], `${ioredis}: callbacks run in the request that made the call`, () => {
  const resources = openedResources();
  const newClient = (options: object = {}) =>
    resources.track(
      runInRoot(() => new Redis({ ...redisConfig, ...options })),
      (client) => client.quit(),
    );
  afterAll(async () => {
    await newClient().del(key);
    await resources.closeAll();
  });

  describeEachPhase(
    () => ({}),
    (phase) => {
      it("get(key, cb) queued behind A's BLPOP on one connection", async () => {
        const client = newClient();
        await client.ping();
        const a = new Promise<string>((resolve, reject) => {
          void inRequest('A', () => client.blpop(emptyList, 0.2, (error) => (error ? reject(error) : resolve(seen()))));
        });
        const results = await everyRequest(requestIds(), (_, report) => client.get(key, (error) => report(error)));
        expect(await a).toBe('A');
        recordRow(ioredis, "get(key, cb) queued behind A's BLPOP", phase, summarize(results));
        expectEachSawItself(results);
        await resources.close(client);
      });

      it('pipeline().exec(cb), multi().exec(cb) and await get() (right either way)', async () => {
        const client = newClient();
        await client.ping();
        const ids = requestIds();
        const pipelines = await everyRequest(ids, (id, report) =>
          client
            .pipeline()
            .set(key, id)
            .get(key)
            .exec((error) => report(error)),
        );
        const multis = await everyRequest(ids, (_, report) =>
          client
            .multi()
            .get(key)
            .exec((error) => report(error)),
        );
        const awaited = await Promise.all(
          ids.map((id) =>
            inRequest(id, async () => {
              await client.get(key);
              return [id, seen()] as const;
            }),
          ),
        );
        recordRow(ioredis, 'pipeline().exec(cb)', phase, summarize(pipelines));
        recordRow(ioredis, 'multi().exec(cb)', phase, summarize(multis));
        recordRow(ioredis, 'await get()', phase, summarize(awaited));
        expectEachSawItself([...pipelines, ...multis, ...awaited]);
        await resources.close(client);
      });

      it("a lazy client's first command, in A, opens its socket: later callbacks see their own request, and A is collected", async () => {
        const client = newClient({ lazyConnect: true });
        const a = await inTrackedRequest('A', (done) => client.get(key, (error) => done(error)));
        const results = await everyRequest(requestIds(), (_, report) => client.get(key, (error) => report(error)));
        recordRow(ioredis, 'lazy client (socket opened in A): B get(key, cb)', phase, summarize(results));
        expectEachSawItself(results);
        if (canCollect()) {
          const collected = await collectGarbage(a.collected);
          recordRow(ioredis, "lazy client: A's values collected after A ended", phase, collected ? 'yes' : 'no');
          expectCollectedOnlyWithGuard(phase, collected);
        }
        await resources.close(client);
      });
    },
  );
});

describeWithServices(
  ['redis'],
  `${nodeRedis}: the client pool's queued tasks run in the request that queued them`,
  () => {
    const resources = openedResources();
    const newPool = () =>
      resources.track(
        runInRoot(() => redis.createClientPool({ url: redisUrl }, { minimum: 1, maximum: 1, acquireTimeout: 30_000 })),
        (pool) => pool.close(),
      );
    const newClient = () =>
      resources.track(
        runInRoot(() => redis.createClient({ url: redisUrl })),
        (client) => (client.isOpen ? client.quit() : undefined),
      );

    afterAll(async () => {
      const client = newClient();
      await runInRoot(() => client.connect());
      await client.del(key);
      await resources.closeAll();
    });

    describeEachPhase(
      () => ({ redis }),
      (phase) => {
        it("createClientPool(…, { maximum: 1 }).execute(fn) queued behind A's BLPOP", async () => {
          const pool = newPool();
          await runInRoot(() => pool.connect());
          let onHeld!: () => void;
          const held = new Promise<void>((resolve) => (onHeld = resolve));
          const a = inRequest('A', () =>
            pool.execute(async (client) => {
              onHeld();
              await client.blPop(emptyList, 0.2);
            }),
          );
          await held;
          const ids = requestIds();
          const results = await Promise.all(
            ids.map((id) =>
              inRequest(id, () =>
                pool.execute(async (client) => {
                  const saw = seen();
                  await client.get(key);
                  return [id, saw] as const;
                }),
              ),
            ),
          );
          await a;
          recordRow(nodeRedis, 'createClientPool execute(fn) queued: fn runs in', phase, summarize(results));
          // Without the guard each fn runs in A, whose finished task returned the client (research 16, all Nodes).
          if (phase === 'with guard') expectEachSawItself(results);
          else expectNoneSawItself(results);
          await resources.close(pool);
        });

        it('await pool.get() queued behind A (right either way)', async () => {
          const pool = newPool();
          await runInRoot(() => pool.connect());
          const a = inRequest('A', () => pool.blPop(emptyList, 0.2));
          const results = await Promise.all(
            requestIds().map((id) =>
              inRequest(id, async () => {
                await pool.get(key);
                return [id, seen()] as const;
              }),
            ),
          );
          await a;
          recordRow(nodeRedis, 'await pool.get() queued', phase, summarize(results));
          expectEachSawItself(results);
          await resources.close(pool);
        });

        it("multi().exec(), multi().execAsPipeline() and legacy().multi().exec(cb) queued behind A's BLPOP (right either way)", async () => {
          const client = newClient();
          await runInRoot(() => client.connect());
          const a = inRequest('A', () => client.blPop(emptyList, 0.2));
          const ids = requestIds();
          // Each request writes its own id and reads it back in the same transaction: a reply handed to the wrong
          // caller would show as a wrong value as well as a wrong context.
          const ownKey = (id: string) => `${key}:${id}`;
          const multis = await Promise.all(
            ids.map((id) =>
              inRequest(id, async () => {
                const [, value] = await client.multi().set(ownKey(id), id).get(ownKey(id)).exec();
                expect(value).toBe(id);
                return [id, seen()] as const;
              }),
            ),
          );
          const pipelines = await Promise.all(
            ids.map((id) =>
              inRequest(id, async () => {
                const [, value] = await client.multi().set(ownKey(id), id).get(ownKey(id)).execAsPipeline();
                expect(value).toBe(id);
                return [id, seen()] as const;
              }),
            ),
          );
          const legacy = client.legacy();
          const callbacks = await everyRequest(ids, (id, report) =>
            legacy
              .multi()
              .set(ownKey(id), id)
              .get(ownKey(id))
              .exec((error: unknown, replies: unknown) => {
                if (error === null && (replies as unknown[])[1] !== id) report(new Error(`read ${String(replies)}`));
                else report(error);
              }),
          );
          await a;
          recordRow(nodeRedis, 'await multi().exec()', phase, summarize(multis));
          recordRow(nodeRedis, 'await multi().execAsPipeline()', phase, summarize(pipelines));
          recordRow(nodeRedis, 'legacy().multi().exec(cb)', phase, summarize(callbacks));
          expectEachSawItself([...multis, ...pipelines, ...callbacks]);
          await client.del(ids.map(ownKey));
          await resources.close(client);
        });

        it('a client connected in A: later commands and legacy() callbacks see their own request, and A is collected', async () => {
          const client = newClient();
          const a = await inTrackedRequest('A', (done) => {
            client
              .connect()
              .then(() => client.get(key))
              .then(() => done(null), done);
          });
          const ids = requestIds();
          const awaited = await Promise.all(
            ids.map((id) =>
              inRequest(id, async () => {
                await client.get(key);
                return [id, seen()] as const;
              }),
            ),
          );
          const legacy = client.legacy();
          const callbacks = await everyRequest(ids, (_, report) => legacy.get(key, (error: unknown) => report(error)));
          recordRow(nodeRedis, 'client connected in A: B await get()', phase, summarize(awaited));
          recordRow(nodeRedis, 'client connected in A: B legacy().get(key, cb)', phase, summarize(callbacks));
          expectEachSawItself([...awaited, ...callbacks]);
          if (canCollect()) {
            const collected = await collectGarbage(a.collected);
            recordRow(
              nodeRedis,
              "client connected in A: A's values collected after A ended",
              phase,
              collected ? 'yes' : 'no',
            );
            expectCollectedOnlyWithGuard(phase, collected);
          }
          await resources.close(client);
        });
      },
    );
  },
);

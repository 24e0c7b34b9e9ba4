// Real worker threads behind a real node:http server: 200 concurrent requests each send 5 tasks (1,000) to 8
// threads of piscina, tinypool, workerpool or plain worker_threads. Every task's pino lines, written in its
// thread to a file of that thread, must carry a run of their own with the request that sent them as causation
// and correlation, and no other request's ids. A task that crashes its thread is logged there with its ids,
// and the pool's rejection reaches the request that sent it, in that request's scope.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { Tinypool } from 'tinypool';
import workerpool from 'workerpool';
import { httpContext, requestContext } from '@ambient/http-context';
import { contextParams, contextTask } from '@ambient/threads-context';

const fixtures = new URL('./fixtures/', import.meta.url);
const threads = 8;
const requests = 200;
const tasksPerRequest = 5;
const logDir = mkdtempSync(join(tmpdir(), 'ambient-threads-'));
// Threads get a copy of the parent's environment when they start.
process.env.THREADS_LOG_DIR = logDir;
after(() => rmSync(logDir, { recursive: true, force: true }));

/** A pool of plain Workers, as an application writes one: round robin, replies by `replyTo`. */
class PlainPool {
  #workers = [];
  #replies = new Map();
  #next = 0;
  #lastReply = 0;
  constructor(size) {
    for (let i = 0; i < size; i++) this.#workers.push(this.#start());
  }
  #start() {
    const worker = new Worker(new URL('plain-worker.mjs', fixtures));
    const waiting = new Set();
    worker.on('message', ({ replyTo, result, error }) => {
      const reply = this.#replies.get(replyTo);
      this.#replies.delete(replyTo);
      waiting.delete(replyTo);
      if (error === undefined) reply.resolve(result);
      else reply.reject(error);
    });
    // A thread that died fails the tasks it had, and is replaced.
    worker.on('error', (error) => {
      for (const replyTo of waiting) this.#replies.get(replyTo).reject(error);
      this.#workers[this.#workers.indexOf(worker)] = this.#start();
    });
    return Object.assign(worker, { waiting });
  }
  run(task) {
    const replyTo = ++this.#lastReply;
    const worker = this.#workers[this.#next++ % this.#workers.length];
    return new Promise((resolve, reject) => {
      this.#replies.set(replyTo, { resolve, reject });
      worker.waiting.add(replyTo);
      worker.postMessage(contextTask({ ...task, replyTo }));
    });
  }
  close() {
    return Promise.all(this.#workers.map((worker) => worker.terminate()));
  }
}

const taskFile = new URL('pool-task.mjs', fixtures).href;
const hosts = [
  {
    name: 'piscina',
    // In CommonJS: the file says why.
    open: () =>
      new Piscina({ filename: new URL('pool-task.cjs', fixtures).href, minThreads: threads, maxThreads: threads }),
    send: (pool, task) => pool.run(contextTask(task)),
    close: (pool) => pool.destroy(),
    jobName: 'task',
    system: 'worker_threads',
  },
  {
    name: 'worker_threads',
    open: () => new PlainPool(threads),
    send: (pool, task) => pool.run(task),
    close: (pool) => pool.close(),
    jobName: 'task',
    system: 'worker_threads',
  },
  {
    name: 'tinypool',
    open: () => new Tinypool({ filename: taskFile, minThreads: threads, maxThreads: threads }),
    send: (pool, task) => pool.run(contextTask(task)),
    close: (pool) => pool.destroy(),
    jobName: 'task',
    system: 'worker_threads',
  },
  {
    name: 'workerpool',
    open: () =>
      workerpool.pool(new URL('workerpool-worker.mjs', fixtures).pathname, {
        minWorkers: threads,
        maxWorkers: threads,
        workerType: 'thread',
      }),
    send: (pool, task) => pool.exec('work', contextParams([task])),
    close: (pool) => pool.terminate(true),
    jobName: 'work',
    system: 'workerpool',
  },
];

let nextIndex = 0;
/** A server whose requests each send `tasksPerRequest` tasks to `pool`; `?crash=` makes its last one crash. */
async function serve(host, pool, failures) {
  const server = http.createServer(
    httpContext(async (req, res) => {
      const crash = new URL(req.url, 'http://x').searchParams.get('crash') ?? undefined;
      const expect = requestContext.require('requestId');
      const tasks = Array.from({ length: tasksPerRequest }, (_, i) => ({
        index: nextIndex++,
        expect,
        delayMs: i % 3,
        ...(crash !== undefined && i === tasksPerRequest - 1 ? { crash } : {}),
      }));
      try {
        const results = await Promise.all(tasks.map((task) => host.send(pool, task)));
        res.end(JSON.stringify({ expect, tasks, results }));
      } catch (error) {
        // What an application's error log does: the failure, in the scope of the request that sent the task.
        failures.push({ requestId: requestContext.get('requestId'), expect, message: String(error?.message) });
        res.statusCode = 500;
        res.end(JSON.stringify({ expect, tasks }));
      }
    }),
  );
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

const get = async (server, path) => {
  const response = await fetch(`http://127.0.0.1:${server.address().port}${path}`);
  return { status: response.status, body: await response.json() };
};

/** Every line the threads wrote so far, by task index; `crashed` lines apart. */
function threadLines() {
  const lines = readdirSync(logDir).flatMap((file) =>
    readFileSync(join(logDir, file), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => ({ ...JSON.parse(line), file })),
  );
  return lines;
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

for (const host of hosts) {
  test(
    `${host.name}: ${requests * tasksPerRequest} tasks from ${requests} concurrent requests over ${threads} threads, each its request's run`,
    { timeout: 120_000 },
    async () => {
      const pool = host.open();
      const failures = [];
      const server = await serve(host, pool, failures);
      try {
        const first = nextIndex;
        const responses = await Promise.all(Array.from({ length: requests }, () => get(server, '/tasks')));
        assert.deepEqual(failures, []);
        const runs = new Map();
        for (const { status, body } of responses) {
          assert.equal(status, 200);
          body.results.forEach((result, i) => {
            assert.equal(result.causationId, body.expect);
            assert.equal(result.correlationId, body.expect);
            assert.match(result.requestId, uuid);
            assert.equal(result.job.name, host.jobName);
            assert.equal(result.job.system, host.system);
            runs.set(body.tasks[i].index, result);
          });
        }
        assert.equal(runs.size, requests * tasksPerRequest);
        assert.equal(new Set([...runs.values()].map((run) => run.requestId)).size, runs.size, 'a run id used twice');

        const lines = threadLines().filter((line) => line.index >= first && line.index < nextIndex);
        assert.equal(lines.length, 2 * runs.size);
        const crossed = lines.filter((line) => line.causationId !== line.expect || line.correlationId !== line.expect);
        assert.equal(crossed.length, 0, `${crossed.length} lines with another request's ids`);
        for (const line of lines) {
          const run = runs.get(line.index);
          assert.equal(line.requestId, run.requestId);
          assert.deepEqual(line.job, run.job);
        }
        assert.ok(new Set(lines.map((line) => line.file)).size > 1, 'the tasks ran on one thread only');
      } finally {
        server.close();
        await host.close(pool);
      }
    },
  );

  test(`${host.name}: a task sent outside any request runs as a new chain`, { timeout: 60_000 }, async () => {
    const pool = host.open();
    try {
      const result = await host.send(pool, { index: nextIndex++, delayMs: 0 });
      assert.equal(result.causationId, undefined);
      assert.equal(result.correlationId, undefined);
      assert.match(result.requestId, uuid);
    } finally {
      await host.close(pool);
    }
  });

  test(
    `${host.name}: a task that crashes its thread is logged there with its ids, and fails its request`,
    { timeout: 60_000 },
    async () => {
      const pool = host.open();
      const failures = [];
      const server = await serve(host, pool, failures);
      try {
        const { status, body } = await get(server, '/tasks?crash=uncaught');
        assert.equal(status, 500);
        assert.equal(failures.length, 1);
        assert.equal(failures[0].requestId, body.expect);
        assert.match(failures[0].message, /crashed its thread/);
        const crashed = body.tasks.at(-1);
        const lines = threadLines();
        const started = lines.find((line) => line.index === crashed.index && line.msg === 'task started');
        const report = lines.find(
          (line) => line.msg === 'thread crashed' && line.err.message.includes(`task ${crashed.index} `),
        );
        assert.ok(report, 'no crash line in the thread');
        assert.equal(report.requestId, started.requestId);
        assert.equal(report.causationId, body.expect);
        assert.equal(report.correlationId, body.expect);
        assert.deepEqual(report.job, started.job);
        // The pool goes on: the next request's tasks run, on a thread that replaced the crashed one.
        assert.equal((await get(server, '/tasks')).status, 200);
      } finally {
        server.close();
        await host.close(pool);
      }
    },
  );
}

// Runs under plain `node --test` (with --expose-gc, as scripts/smoke.mjs starts it), outside jest, on every Node
// line of the matrix: a koa 3 server created inside a test serves a few hundred requests, each storing a marker
// in its scope and crossing every kind of async hop; after the server closes and GC runs, no marker may still
// be reachable, the first request's included. On Node 20 the first request's scope used to live forever: koa's
// body setter loads undici lazily inside it (see packages/http-context/src/lazy-globals.ts).
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import Koa from 'koa';
import { koaContext, requestContext } from '@ambient/koa-context';

const gc = globalThis.gc;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const requests = 300;
const concurrency = 10;

// Skipped only without --expose-gc (a bare `node --test`): scripts/smoke.mjs passes the flag to every file, in
// npm test and on each Node of the matrix, so CI runs it. Collection is forced; without gc() nothing is seen.
test(
  'no request scope outlives its request, the first one included',
  { skip: gc ? false : 'needs node --expose-gc' },
  async () => {
    const collected = new Set();
    const registry = new FinalizationRegistry((id) => collected.add(id));
    let next = 0;
    const app = new Koa();
    app.use(koaContext());
    app.use(async (ctx) => {
      const id = next++;
      const marker = { id };
      registry.register(marker, id);
      requestContext.set('marker', marker);
      await sleep(Math.random() * 5);
      await new Promise((resolve) => setImmediate(resolve));
      await readFile(fileURLToPath(import.meta.url));
      const emitter = new EventEmitter();
      const emitted = new Promise((resolve) => emitter.once('hop', resolve));
      setTimeout(() => emitter.emit('hop'), 1);
      await emitted;
      ctx.body = { id, seen: requestContext.get('marker')?.id };
    });
    const server = http.createServer(app.callback());
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address();
    const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
    let sent = 0;
    const mismatches = [];
    async function client() {
      while (sent < requests) {
        sent++;
        const body = await new Promise((resolve, reject) => {
          http
            .get({ host: '127.0.0.1', port, path: '/', agent }, (res) => {
              let text = '';
              res.setEncoding('utf8');
              res.on('data', (chunk) => (text += chunk));
              res.on('end', () => resolve(JSON.parse(text)));
            })
            .on('error', reject);
        });
        if (body.id !== body.seen) mismatches.push(body);
      }
    }
    await Promise.all(Array.from({ length: concurrency }, client));
    agent.destroy();
    await new Promise((resolve) => server.close(resolve));
    assert.deepEqual(mismatches, []);
    // Finalizers run on a later turn after a GC: collect until every marker is reported, twenty rounds at most.
    for (let round = 0; round < 20 && collected.size < requests; round++) {
      gc();
      await sleep(20);
    }
    const retained = Array.from({ length: requests }, (_, id) => id).filter((id) => !collected.has(id));
    assert.deepEqual(retained, [], `request scopes still reachable after GC: ${retained.join(', ')}`);
  },
);

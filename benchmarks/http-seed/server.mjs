// One server of the seed workload (the shape of nodejs/node's benchmark/async_hooks/async-resource-vs-destroy.js):
// per request, put a value in context, wait 10 ms on a timer, read a file, answer JSON with the value read back.
//   node server.mjs <none|als|cls-hooked|ambient> <callback|async>
// Forked by run.mjs, which drives the load from its own process and asks this one for its CPU time.
import { AsyncLocalStorage } from 'node:async_hooks';
import { readFile } from 'node:fs';
import { readFile as readFileAsync } from 'node:fs/promises';
import http from 'node:http';
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { httpContext, requestContext } from '@ambient/http-context';
import { serveForBenchmark } from '../load.mjs';

const [variant, style] = process.argv.slice(2);
const file = fileURLToPath(new URL('payload.json', import.meta.url));
let counter = 0;

function answer(res, value, content) {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ value, bytes: content.length }));
}

// How each variant stores the value and reads it back after the timer and the file read.
const contexts = {
  none: () => {
    // The value travels in a closure: the baseline with no context at all.
    return (req, res, work) => {
      const value = `user-${++counter}`;
      work(() => value, res);
    };
  },
  als: () => {
    const als = new AsyncLocalStorage();
    return (req, res, work) => als.run({ value: `user-${++counter}` }, () => work(() => als.getStore().value, res));
  },
  'cls-hooked': () => {
    const cls = createRequire(import.meta.url)('cls-hooked');
    const ns = cls.createNamespace('seed');
    return (req, res, work) =>
      ns.run(() => {
        ns.set('value', `user-${++counter}`);
        work(() => ns.get('value'), res);
      });
  },
  ambient: () => {
    // httpContext does the request-id work on top: validate or generate (UUIDv7), echo, bind req/res.
    const wrap = (work) =>
      httpContext((req, res) => {
        requestContext.set('user', `user-${++counter}`);
        work(() => requestContext.get('user'), res);
      });
    return wrap;
  },
};

const works = {
  callback: (read, res) =>
    setTimeout(
      () => readFile(file, (error, content) => (error ? res.destroy(error) : answer(res, read(), content))),
      10,
    ),
  async: async (read, res) => {
    await sleep(10);
    const content = await readFileAsync(file);
    answer(res, read(), content);
  },
};

const work = works[style];
const context = contexts[variant]();
const listener = variant === 'ambient' ? context(work) : (req, res) => context(req, res, work);
const server = http.createServer({ keepAliveTimeout: 60_000 }, listener);

serveForBenchmark(server);

// The conformance Ambient claims on a JavaScript runtime, run by that runtime itself (Node, Bun, Deno), from the
// repository's root on the built packages: core's API across every kind of async hop, the HTTP rules through
// node:http (the conformance suite's quick and ambient profiles on httpContext), outgoing propagation, a task in
// a worker thread, and the runtime's AsyncLocalStorage facts. Prints one JSON object: { runtime, facts, cases }
// with each case's group, name, outcome (pass, fail, unsupported) and, where it did not pass, why.
// scripts/runtimes.mjs runs it on each runtime and writes the README's table from the results.
import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import { EventEmitter, once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import {
  AmbientError,
  Snapshot,
  Variable,
  bindCallback,
  bindEmitter,
  createContext,
  requestContext,
  runInRoot,
} from '@ambient/core';
import { currentRuntime } from '@ambient/core/internal';
import { nodeHttpHarness, readersFor, runConformance } from '@ambient/conformance';
import { httpContext, outgoingPropagation } from '@ambient/http-context';
import { contextTask } from '@ambient/threads-context';

const cases = [];
const add = (group, name, fn) => cases.push({ group, name, fn });
const tick = () => new Promise((resolve) => setTimeout(resolve, 1));
const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const spanId = '00f067aa0ba902b7';

// Every hop a value must survive, each from inside a run.
const hops = {
  await: async (read) => {
    await null;
    await tick();
    return read();
  },
  setTimeout: (read) => new Promise((resolve) => setTimeout(() => resolve(read()), 1)),
  setImmediate: (read) => new Promise((resolve) => setImmediate(() => resolve(read()))),
  'process.nextTick': (read) => new Promise((resolve) => process.nextTick(() => resolve(read()))),
  queueMicrotask: (read) => new Promise((resolve) => queueMicrotask(() => resolve(read()))),
  'a thenable': async (read) => await { then: (resolve) => resolve(read()) },
  'promise.then': (read) => Promise.resolve().then(read),
};

// --- core ------------------------------------------------------------------------------------------------------
for (const [hop, through] of Object.entries(hops)) {
  add('Variable', `run/get across ${hop}`, async () => {
    const variable = new Variable({ name: 'v' });
    assert.equal(await variable.run('a', () => through(() => variable.get())), 'a');
    assert.equal(variable.get(), undefined);
  });
}
add('Variable', 'nested runs restore the outer value, 100 interleaved runs keep their own', async () => {
  const variable = new Variable({ defaultValue: 'none' });
  await variable.run('outer', async () => {
    await variable.run('inner', tick);
    assert.equal(variable.get(), 'outer');
  });
  const seen = await Promise.all(
    Array.from({ length: 100 }, (_, i) => variable.run(i, async () => (await tick(), variable.get()))),
  );
  assert.deepEqual(
    seen,
    Array.from({ length: 100 }, (_, i) => i),
  );
  assert.equal(variable.get(), 'none');
});
add('Snapshot', 'a snapshot runs a function later with the values it captured', async () => {
  const variable = new Variable();
  const snapshot = variable.run('captured', () => new Snapshot());
  assert.equal(await variable.run('other', () => snapshot.run(() => through(() => variable.get()))), 'captured');
  function through(read) {
    return hops.setTimeout(read);
  }
});
add('Snapshot', 'Snapshot.wrap binds a callback to the values where it was wrapped', () => {
  const variable = new Variable();
  const wrapped = variable.run('wrapped', () => Snapshot.wrap(() => variable.get()));
  assert.equal(variable.run('other', wrapped), 'wrapped');
});
add('createContext', 'run, get, set and require across await; require outside throws a coded error', async () => {
  const context = createContext({ name: 'jobs' });
  await context.run({ jobId: 'j-1' }, async () => {
    await tick();
    context.set('attempt', 2);
    await tick();
    assert.equal(context.require('jobId'), 'j-1');
    assert.equal(context.get('attempt'), 2);
  });
  assert.throws(
    () => context.require('jobId'),
    (error) => error instanceof AmbientError && typeof error.code === 'string',
  );
});
add('requestContext', 'run and snapshot; runInRoot leaves every scope', async () => {
  await requestContext.run({ requestId: 'req-1' }, async () => {
    await tick();
    assert.equal(requestContext.snapshot()?.requestId, 'req-1');
    assert.equal(
      runInRoot(() => requestContext.active),
      false,
    );
  });
  assert.equal(requestContext.active, false);
});
add(
  'requestContext',
  'bindEmitter runs a listener where it was added, bindCallback a callback where it was bound',
  () => {
    const emitter = requestContext.run({ requestId: 'req-emitter' }, () => bindEmitter(new EventEmitter()));
    const seen = [];
    requestContext.run({ requestId: 'req-listener' }, () =>
      emitter.on('event', () => seen.push(requestContext.get('requestId'))),
    );
    const callback = requestContext.run({ requestId: 'req-callback' }, () =>
      bindCallback(() => seen.push(requestContext.get('requestId'))),
    );
    requestContext.run({ requestId: 'req-other' }, () => {
      emitter.emit('event');
      callback();
    });
    assert.deepEqual(seen, ['req-listener', 'req-callback']);
  },
);

// --- HTTP ------------------------------------------------------------------------------------------------------
const harness = nodeHttpHarness({
  name: '@ambient/http-context (node:http)',
  wrap: (listener, onError) => httpContext(listener, { onError }),
  ...readersFor(requestContext),
});
const conformance = await runConformance(harness, { profiles: ['quick', 'ambient'] });
for (const result of conformance) {
  cases.push({ group: 'HTTP rules', name: result.id, outcome: result.outcome, detail: result.detail });
}

// A server answering with the request id it was sent, and outgoing propagation to it alone.
const echo = http.createServer((req, res) => res.end(String(req.headers['x-request-id'])));
echo.listen(0, '127.0.0.1');
await once(echo, 'listening');
const url = `http://127.0.0.1:${echo.address().port}/`;
const propagated = outgoingPropagation({ allowedOrigins: [new URL(url).origin] });
add('outgoing propagation', 'http.request sends the scope’s id', async () => {
  const body = await requestContext.run({ requestId: 'req-out-1' }, async () => {
    await tick();
    return new Promise((resolve, reject) =>
      http
        .get(url, (res) => {
          let text = '';
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => resolve(text));
        })
        .on('error', reject),
    );
  });
  assert.equal(body, 'req-out-1');
});
add('outgoing propagation', 'fetch sends the scope’s id', async () => {
  const body = await requestContext.run({ requestId: 'req-out-2' }, async () => (await fetch(url)).text());
  assert.equal(body, 'req-out-2');
});

// --- worker threads --------------------------------------------------------------------------------------------
add('worker threads', 'a task sent with contextTask runs in its thread with the sender as causation', async () => {
  const worker = new Worker(new URL('thread.mjs', import.meta.url));
  try {
    const reply = once(worker, 'message');
    const sender = { requestId: 'req-task', correlationId: 'chain-task', traceId, spanId, traceFlags: '01' };
    requestContext.run(sender, () => worker.postMessage(contextTask({ n: 1 })));
    const [run] = await reply;
    assert.equal(run.causationId, 'req-task');
    assert.equal(run.correlationId, 'chain-task');
    assert.equal(run.traceId, traceId);
    assert.equal(run.spanId, spanId);
    assert.notEqual(run.requestId, 'req-task');
  } finally {
    await worker.terminate();
  }
});

// --- every package --------------------------------------------------------------------------------------------
// Each package's main entry imports here: one that needed an API this runtime lacks must say so with a coded
// error at import, never fail later, deep inside.
for (const folder of readdirSync('packages').sort()) {
  const { name } = JSON.parse(readFileSync(join('packages', folder, 'package.json'), 'utf8'));
  add('packages', name, async () => {
    try {
      await import(name);
    } catch (error) {
      // Refusing this runtime is allowed, with a code of Ambient's; anything else is a crash at import.
      if (!(error instanceof AmbientError)) throw error;
    }
  });
}

// --- run -------------------------------------------------------------------------------------------------------
for (const each of cases.filter((candidate) => candidate.fn !== undefined)) {
  try {
    await Promise.race([
      each.fn(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('timed out after 10 s')), 10_000).unref()),
    ]);
    each.outcome = 'pass';
  } catch (error) {
    each.outcome = 'fail';
    each.detail = String(error?.message ?? error).split('\n')[0];
  }
  delete each.fn;
}
propagated.dispose();
echo.close();

const runtime = currentRuntime();
const facts = {
  withScope: typeof AsyncLocalStorage.prototype.withScope === 'function',
  snapshot: typeof AsyncLocalStorage.snapshot === 'function',
  enterWith: typeof AsyncLocalStorage.prototype.enterWith === 'function',
};
console.log(JSON.stringify({ runtime, facts, cases }));
process.exit(0);

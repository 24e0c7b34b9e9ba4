// Runs @ambient/conformance's soak profile at full size (10,000 requests at concurrency 200 on a fresh server)
// against every Ambient adapter, each set up as its README shows, and prints one row per adapter: requests,
// mismatches, retained scopes (the first request's named), duration. `npm test` runs the same case at CI size
// (the soak-ci profile) in each adapter's conformance test; this is the operator's run. It imports the built
// packages by name, as a user would: build first (`npm run build`).
//
//   node scripts/soak-adapters.mjs               every adapter, 10,000 requests at concurrency 200
//   node scripts/soak-adapters.mjs --requests 50000 --concurrency 500
//
// Each adapter soaks in a process of its own, so that its server's first request is the process's first too:
// what the first request loads lazily (undici, on Node 20: see packages/http-context/src/lazy-globals.ts) then loads
// inside a tracked scope, never in an earlier adapter's. Exits non-zero when any adapter crosses or retains.

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import formbody from '@fastify/formbody';
import { bodyParser } from '@koa/bodyparser';
import {
  expressHarness,
  fastifyHarness,
  honoHarness,
  koaHarness,
  nodeHttpHarness,
  readersFor,
  runConformance,
  soakSizes,
} from '@ambient/conformance';
import { expressContext, requestContext as expressRequestContext } from '@ambient/express-context';
import { fastifyContext, requestContext as fastifyRequestContext } from '@ambient/fastify-context';
import { honoContext, requestContext as honoRequestContext } from '@ambient/hono-context';
import { httpContext, requestContext as httpRequestContext } from '@ambient/http-context';
import { koaContext, requestContext as koaRequestContext } from '@ambient/koa-context';
import express from 'express';
import express4 from 'express4';
import fastify from 'fastify';
import fastify4 from 'fastify4';
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';
import { createAdaptorServer as createAdaptorServer1 } from 'hono-node-server1';
import formbody7 from 'formbody7';
import Koa from 'koa';
import Koa2 from 'koa2';

// The soak needs node's gc; the suite never switches V8 flags itself, so this script restarts with it.
if (typeof globalThis.gc !== 'function') {
  const { status } = spawnSync(
    process.execPath,
    ['--expose-gc', fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    {
      stdio: 'inherit',
    },
  );
  process.exit(status ?? 1);
}

const { values } = parseArgs({
  // --adapter: the index of the one adapter a child process soaks, reporting its result as JSON on stdout.
  options: { requests: { type: 'string' }, concurrency: { type: 'string' }, adapter: { type: 'string' } },
});
const soakSize = {
  requests: values.requests === undefined ? soakSizes.full.requests : Number(values.requests),
  concurrency: values.concurrency === undefined ? soakSizes.full.concurrency : Number(values.concurrency),
};

const harnesses = [
  nodeHttpHarness({
    name: '@ambient/http-context (node:http)',
    wrap: (listener, onError) => httpContext(listener, { onError }),
    ...readersFor(httpRequestContext),
  }),
  ...[
    ['express 5', express],
    ['express 4', express4],
  ].map(([name, module]) =>
    expressHarness({
      name: `@ambient/express-context (${name})`,
      express: module,
      contextMiddleware: [expressContext()],
      ...readersFor(expressRequestContext),
    }),
  ),
  ...[
    ['koa 3', Koa],
    ['koa 2', Koa2],
  ].map(([name, module]) =>
    koaHarness({
      name: `@ambient/koa-context (${name})`,
      koa: module,
      bodyParser: () => bodyParser(),
      contextMiddleware: [koaContext()],
      ...readersFor(koaRequestContext),
    }),
  ),
  ...[
    ['fastify 5', () => fastify(), formbody],
    // requestIdHeader: false: fastify 4 reads its own "request-id" header by default, which the plugin warns about.
    ['fastify 4', () => fastify4({ requestIdHeader: false }), formbody7],
  ].map(([name, createFastify, formbodyPlugin]) =>
    fastifyHarness({
      name: `@ambient/fastify-context (${name})`,
      createFastify,
      register: async (app) => {
        await app.register(fastifyContext);
        await app.register(formbodyPlugin);
      },
      ...readersFor(fastifyRequestContext),
    }),
  ),
  ...[
    ['@hono/node-server 2', createAdaptorServer],
    ['@hono/node-server 1', createAdaptorServer1],
  ].map(([name, serve]) =>
    honoHarness({
      name: `@ambient/hono-context (hono 4, ${name})`,
      hono: Hono,
      createAdaptorServer: serve,
      contextMiddleware: [honoContext()],
      ...readersFor(honoRequestContext),
    }),
  ),
];

/** `12 hops saw …` and `3 of 10,000 request scopes …`: the counts a failing soak's message starts with. */
function figures(result) {
  if (result.outcome === 'pass') return { mismatches: '0', retained: '0' };
  const detail = result.detail ?? '';
  const mismatches = /^(\d+) hops saw/.exec(detail)?.[1];
  const retained = /^(\d+) of [\d,]+ request scopes still reachable/.exec(detail)?.[1];
  if (mismatches !== undefined) return { mismatches, retained: 'not reached' };
  if (retained !== undefined)
    return { mismatches: '0', retained: detail.includes("first request's") ? `${retained} (first incl.)` : retained };
  return { mismatches: '?', retained: '?' };
}

if (values.adapter !== undefined) {
  const [result] = await runConformance(harnesses[Number(values.adapter)], { profiles: ['soak'], soakSize });
  process.stdout.write(JSON.stringify(result));
  process.exit(0);
}

console.log(
  `soak: ${soakSize.requests.toLocaleString('en')} requests at concurrency ${soakSize.concurrency} per adapter, one process each, Node ${process.version}\n`,
);
const rows = [['adapter', 'requests', 'mismatches', 'retained', 'duration', 'outcome']];
let failed = false;
for (const [index, harness] of harnesses.entries()) {
  const child = spawnSync(
    process.execPath,
    ['--expose-gc', fileURLToPath(import.meta.url), ...process.argv.slice(2), '--adapter', String(index)],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 20 },
  );
  const result =
    child.status === 0
      ? JSON.parse(child.stdout)
      : { outcome: 'fail', detail: `the soak process exited with ${child.status ?? child.signal}`, durationMs: 0 };
  const { mismatches, retained } = figures(result);
  failed ||= result.outcome !== 'pass';
  rows.push([
    harness.name,
    soakSize.requests.toLocaleString('en'),
    mismatches,
    retained,
    `${(result.durationMs / 1000).toFixed(1)} s`,
    result.outcome,
  ]);
  if (result.outcome !== 'pass') console.error(`${harness.name}: ${result.detail}`);
}
const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
const line = (row) => `| ${row.map((cell, column) => cell.padEnd(widths[column])).join(' | ')} |`;
console.log([line(rows[0]), line(widths.map((width) => '-'.repeat(width))), ...rows.slice(1).map(line)].join('\n'));
process.exit(failed ? 1 : 0);

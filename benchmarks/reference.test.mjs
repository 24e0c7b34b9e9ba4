// Proves that the framework budgets' reference (hand-written.mjs) is a correct request-context middleware: the
// conformance suite's universal profile, on express 5, koa 3 and fastify 5. `npm run bench` runs it first on
// each Node line (BENCH_ONLY=reference alone):  node --expose-gc --test benchmarks/reference.test.mjs
import { after, describe, it } from 'node:test';
import formbody from '@fastify/formbody';
import { bodyParser } from '@koa/bodyparser';
import { describeConformance, expressHarness, fastifyHarness, koaHarness } from '@ambient/conformance';
import express from 'express';
import fastify from 'fastify';
import Koa from 'koa';
import { handWritten, readers } from './hand-written.mjs';

const registrar = {
  describe,
  it: Object.assign((name, body, timeout) => it(name, { timeout }, body), {
    // Only for a case this process cannot run: the conformance suite skips the memory case, naming it
    // "[NOT RUN: …]", when node runs without --expose-gc. run.mjs always passes the flag, so nothing is skipped.
    skip: (name, body) => it.skip(name, body),
  }),
  afterAll: after,
};
const harnesses = [
  expressHarness({
    name: 'hand-written on express 5',
    express,
    contextMiddleware: [handWritten.express()],
    ...readers,
  }),
  koaHarness({
    name: 'hand-written on koa 3',
    koa: Koa,
    bodyParser: () => bodyParser(),
    contextMiddleware: [handWritten.koa()],
    ...readers,
  }),
  fastifyHarness({
    name: 'hand-written on fastify 5',
    createFastify: () => fastify(),
    register: async (app) => {
      app.addHook('onRequest', handWritten.fastify());
      await app.register(formbody);
    },
    ...readers,
  }),
];
for (const harness of harnesses) describeConformance(harness, registrar, { profiles: ['universal'] });

// Runs @ambient/conformance (universal and ambient profiles, full size) against Ambient's own adapters and
// against the peer libraries people use instead, each set up as its README shows, and writes the table of
// outcomes into packages/conformance/README.md between its peers markers. `npm run conformance:peers` builds
// first: this script imports the built packages by name, as a user would.
//
// Peer failures are findings, never errors; the script fails only when an Ambient column does not pass, or
// when a harness cannot run at all.
import { spawnSync } from 'node:child_process';
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import formbody from '@fastify/formbody';
import { fastifyRequestContext, requestContext as fastifyPeerContext } from '@fastify/request-context';
import {
  conformanceCases,
  expressHarness,
  fastifyHarness,
  nodeHttpHarness,
  readersFor,
  runConformance,
} from '@ambient/conformance';
import { expressContext } from '@ambient/express-context';
import { fastifyContext } from '@ambient/fastify-context';
import { httpContext, requestContext } from '@ambient/http-context';
import rTracer from 'cls-rtracer';
import express from 'express';
import * as expressHttpContext from 'express-http-context';
import fastify from 'fastify';
import * as prettier from 'prettier';

// The memory case needs node's gc; the suite never switches V8 flags itself, so this script restarts with it.
if (typeof globalThis.gc !== 'function') {
  const { status } = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url)], { stdio: 'inherit' });
  process.exit(status ?? 1);
}

const readme = fileURLToPath(new URL('../packages/conformance/README.md', import.meta.url));
const startMarker = '<!-- peers:start -->';
const endMarker = '<!-- peers:end -->';
const profiles = ['universal', 'ambient'];

/** `2.6` for an installed package: the major and minor the column was measured on. */
function version(name) {
  const manifest = JSON.parse(readFileSync(new URL(`../node_modules/${name}/package.json`, import.meta.url), 'utf8'));
  return manifest.version.split('.').slice(0, 2).join('.');
}

const frameworks = { express: `express ${version('express')}`, fastify: `fastify ${version('fastify')}` };
const ambientReaders = readersFor(requestContext);

/** Each column: whose it is, how it is set up (shown under the table), and its harness. */
const columns = [
  {
    ambient: true,
    setup: '`httpContext(listener, { onError })` around a plain `node:http` listener',
    harness: nodeHttpHarness({
      name: `@ambient/http-context (node:http)`,
      wrap: (listener, onError) => httpContext(listener, { onError }),
      ...ambientReaders,
    }),
  },
  {
    ambient: true,
    setup: '`app.use(expressContext())` first',
    harness: expressHarness({
      name: `@ambient/express-context (${frameworks.express})`,
      express,
      contextMiddleware: [expressContext()],
      ...ambientReaders,
    }),
  },
  {
    ambient: true,
    setup: '`app.register(fastifyContext)`, and @fastify/formbody for urlencoded bodies',
    harness: fastifyHarness({
      name: `@ambient/fastify-context (${frameworks.fastify})`,
      createFastify: () => fastify(),
      register: async (app) => {
        await app.register(fastifyContext);
        await app.register(formbody);
      },
      ...ambientReaders,
    }),
  },
  {
    setup: "`rTracer.expressMiddleware({ useHeader: true, headerName: 'X-Request-Id', echoHeader: true })`",
    harness: expressHarness({
      name: `cls-rtracer ${version('cls-rtracer')} (${frameworks.express})`,
      express,
      contextMiddleware: [rTracer.expressMiddleware({ useHeader: true, headerName: 'X-Request-Id', echoHeader: true })],
      readRequestId: () => rTracer.id(),
    }),
  },
  {
    setup:
      "its `middleware`, then `set('requestId', id)` with the incoming `x-request-id` (when sent once) or " +
      '`randomUUID()`, and the echo',
    harness: expressHarness({
      name: `express-http-context ${version('express-http-context')} (${frameworks.express})`,
      express,
      contextMiddleware: [
        expressHttpContext.middleware,
        (req, res, next) => {
          const incoming = req.headers['x-request-id'];
          const id = typeof incoming === 'string' ? incoming : randomUUID();
          expressHttpContext.set('requestId', id);
          res.setHeader('x-request-id', id);
          next();
        },
      ],
      readRequestId: () => expressHttpContext.get('requestId'),
      setValue: (key, value) => expressHttpContext.set(key, value),
      getValue: (key) => expressHttpContext.get(key),
    }),
  },
  {
    setup:
      "`fastify({ requestIdHeader: 'x-request-id', genReqId: () => randomUUID() })`, " +
      '`register(fastifyRequestContext, { defaultStoreValues: (request) => ({ requestId: request.id }) })`, ' +
      'an `onRequest` hook echoing `request.id`',
    harness: fastifyHarness({
      name: `@fastify/request-context ${version('@fastify/request-context')} (${frameworks.fastify})`,
      createFastify: () => fastify({ requestIdHeader: 'x-request-id', genReqId: () => randomUUID() }),
      register: async (app) => {
        await app.register(fastifyRequestContext, { defaultStoreValues: (request) => ({ requestId: request.id }) });
        app.addHook('onRequest', async (request, reply) => {
          reply.header('x-request-id', request.id);
        });
        await app.register(formbody);
      },
      readRequestId: () => fastifyPeerContext.get('requestId'),
      setValue: (key, value) => fastifyPeerContext.set(key, value),
      getValue: (key) => fastifyPeerContext.get(key),
    }),
  },
  handWrittenColumn(),
];

/** The middleware many apps write instead of a library: one AsyncLocalStorage, a store per request, the echo. */
function handWrittenColumn() {
  const als = new AsyncLocalStorage();
  return {
    setup:
      "`app.use((req, res, next) => als.run({ requestId: req.headers['x-request-id'] ?? randomUUID() }, next))` " +
      'plus the echo; values set with `als.getStore()[key] = value`',
    harness: expressHarness({
      name: `AsyncLocalStorage by hand (${frameworks.express})`,
      express,
      contextMiddleware: [
        (req, res, next) => {
          const requestId = req.headers['x-request-id'] ?? randomUUID();
          res.setHeader('x-request-id', requestId);
          als.run({ requestId }, next);
        },
      ],
      readRequestId: () => als.getStore()?.requestId,
      setValue: (key, value) => {
        als.getStore()[key] = value;
      },
      getValue: (key) => als.getStore()?.[key],
    }),
  };
}

const escapeCell = (text) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function cell(result) {
  if (result === undefined) return 'n/a';
  return result.outcome === 'fail' ? '**fail**' : result.outcome;
}

/** Every case any column can run (every body-parser placement), universal ones first, in the suite's order. */
function rowsFor() {
  const everyPlacement = { name: 'rows', bodyParsers: ['none', 'before', 'after'], readRequestId: () => undefined };
  const cases = conformanceCases(everyPlacement, { profiles });
  return profiles.flatMap((profile) => cases.filter((testCase) => testCase.profile === profile));
}

/** `- name: what it lacks (case, case); …` for each column that could not run some cases. */
function notRun({ harness, results }) {
  const byReason = new Map(); // Map.groupBy arrived in Node 21
  for (const result of results.filter((r) => r.outcome === 'unsupported'))
    byReason.set(result.detail ?? '', [...(byReason.get(result.detail ?? '') ?? []), result]);
  if (byReason.size === 0) return [];
  const reasons = [...byReason].map(([reason, group]) => `${reason} (${group.map((r) => `\`${r.id}\``).join(', ')})`);
  return [`- ${harness.name}: ${reasons.join('; ')}.`];
}

function render(measured) {
  const header = ['case', 'profile', 'tags', ...measured.map(({ harness }) => harness.name)];
  const lines = [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rowsFor().map((row) => {
      const cells = measured.map(({ results }) => cell(results.find((result) => result.id === row.id)));
      return `| \`${row.id}\` | ${row.profile} | ${row.tags.join(', ')} | ${cells.join(' | ')} |`;
    }),
    ...profiles.map((profile) => {
      const counts = measured.map(({ results }) =>
        String(results.filter((result) => result.profile === profile && result.outcome === 'fail').length),
      );
      return `| **failed: ${profile}** | | | ${counts.join(' | ')} |`;
    }),
  ];
  const failures = measured.flatMap(({ harness, results }) =>
    results
      .filter((result) => result.outcome === 'fail')
      .map((result) => `- ${harness.name}, \`${result.id}\`: ${escapeCell(result.detail ?? '')}`),
  );
  return [
    `Measured on Node ${process.version}; \`n/a\`: that body-parser placement is not part of that harness.`,
    '',
    lines.join('\n'),
    '',
    'Set up as:',
    '',
    ...measured.map(({ harness, setup }) => `- ${harness.name}: ${setup}.`),
    '',
    'Why each failing case failed (the first assertion that did not hold):',
    '',
    ...(failures.length > 0 ? failures : ['- none failed.']),
    '',
    '`unsupported`: the library offers nothing the case could use:',
    '',
    ...measured.flatMap(notRun),
  ].join('\n');
}

const measured = [];
let broken = false;
for (const { harness, setup, ambient = false } of columns) {
  process.stderr.write(`\n${harness.name}\n`);
  try {
    const results = await runConformance(harness, {
      profiles,
      onResult: (result) =>
        process.stderr.write(
          `  ${result.outcome.padEnd(11)} ${result.id} (${result.durationMs} ms)${result.detail ? `: ${result.detail}` : ''}\n`,
        ),
    });
    measured.push({ harness, setup, results });
    const notPassing = results.filter((result) => result.outcome !== 'pass');
    if (ambient && notPassing.length > 0) {
      broken = true;
      process.stderr.write(`  Ambient's own column does not pass: ${notPassing.map((r) => r.id).join(', ')}\n`);
    }
  } catch (error) {
    broken = true;
    process.stderr.write(`  the harness could not run: ${error instanceof Error ? error.stack : String(error)}\n`);
  }
}

const text = readFileSync(readme, 'utf8');
const start = text.indexOf(startMarker);
const end = text.indexOf(endMarker);
if (start === -1 || end < start) throw new Error(`${readme} has no ${startMarker} … ${endMarker} section`);
const updated = `${text.slice(0, start)}${startMarker}\n\n${render(measured)}\n\n${text.slice(end)}`;
const formatted = await prettier.format(updated, { ...(await prettier.resolveConfig(readme)), filepath: readme });
writeFileSync(readme, formatted);
process.stderr.write(`\nwrote the peers table into ${readme}\n`);
if (broken) process.exitCode = 1;

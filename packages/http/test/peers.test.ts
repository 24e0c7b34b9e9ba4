import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import rTracer from 'cls-rtracer';
import * as expressHttpContext from 'express-http-context';
import express from 'express';
import { expressHarness, runConformance, type CaseResult, type ConformanceHarness } from '@ambient/conformance';
import { ambientHttpHarness } from './helpers/ambient-harness.js';

/**
 * Points the suite at two third-party libraries, set up as their READMEs show, and writes which cases each
 * fails into the conformance README. Their failures are findings, not build failures: this test only
 * requires that every case produced an outcome, and that Ambient's own column passes throughout.
 */
const ambient = ambientHttpHarness;

const clsRtracer = expressHarness({
  name: 'cls-rtracer 2.6 (express 5)',
  express,
  contextMiddleware: [rTracer.expressMiddleware({ useHeader: true, headerName: 'X-Request-Id', echoHeader: true })],
  readRequestId: () => rTracer.id() as string | undefined,
});

const httpContextPeer = expressHarness({
  name: 'express-http-context 2.0 (express 5)',
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
  readRequestId: () => expressHttpContext.get('requestId') as string | undefined,
  setValue: (key, value) => expressHttpContext.set(key, value),
  getValue: (key) => expressHttpContext.get(key) as unknown,
});

const readme = join(__dirname, '..', '..', 'conformance', 'README.md');
const startMarker = '<!-- peers:start -->';
const endMarker = '<!-- peers:end -->';

function cell(result: CaseResult | undefined): string {
  if (result === undefined) return 'n/a';
  if (result.outcome === 'pass') return 'pass';
  if (result.outcome === 'unsupported') return `unsupported (${result.detail ?? ''})`;
  return `**fail**: ${(result.detail ?? '').replace(/\|/g, '\\|').slice(0, 110)}`;
}

function table(columns: Array<[ConformanceHarness, CaseResult[]]>): string {
  const ids = [...new Set(columns.flatMap(([, results]) => results.map((result) => result.id)))];
  const lines = [
    `| case | ${columns.map(([harness]) => harness.name).join(' | ')} |`,
    `|---|${columns.map(() => '---').join('|')}|`,
    ...ids.map(
      (id) =>
        `| \`${id}\` | ${columns.map(([, results]) => cell(results.find((result) => result.id === id))).join(' | ')} |`,
    ),
    `| **failed** | ${columns.map(([, results]) => String(results.filter((result) => result.outcome === 'fail').length)).join(' | ')} |`,
  ];
  return lines.join('\n');
}

it('reports where cls-rtracer and express-http-context fail the suite, and writes the table into the README', async () => {
  const columns: Array<[ConformanceHarness, CaseResult[]]> = [];
  for (const harness of [ambient, clsRtracer, httpContextPeer]) columns.push([harness, await runConformance(harness)]);

  for (const [, results] of columns) {
    expect(results.length).toBeGreaterThanOrEqual(19);
    // Every peer handles concurrent requests correctly: a failure here means the harness is broken, not the peer.
    expect(results.find((result) => result.id === 'concurrency')?.outcome).toBe('pass');
  }
  expect(columns[0]![1].filter((result) => result.outcome !== 'pass')).toEqual([]);

  const text = readFileSync(readme, 'utf8');
  const start = text.indexOf(startMarker);
  const end = text.indexOf(endMarker);
  expect(start).toBeGreaterThan(-1);
  const generated = `${startMarker}\n${table(columns)}\n${endMarker}`;
  const updated = text.slice(0, start) + generated + text.slice(end + endMarker.length);
  if (updated !== text) writeFileSync(readme, updated);
}, 600_000);

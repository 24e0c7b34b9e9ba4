import assert from 'node:assert/strict';
import { send } from '../client.js';
import { timeoutFor, type ConformanceCase } from '../case.js';

const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const parentId = '00f067aa0ba902b7';

/** From the W3C Trace Context specification and its test suite (w3c/trace-context, test/test.py). */
const valid: Array<[string, string]> = [
  ['the specification example', `00-${traceId}-${parentId}-01`],
  ['flags 00', `00-${traceId}-${parentId}-00`],
  ['a future version with more fields', `cc-${traceId}-${parentId}-01-what-the-future-will-be-like`],
  ['a future version of exactly 55 characters', `01-${traceId}-${parentId}-09`],
];

const invalid: Array<[string, string | readonly string[]]> = [
  ['version ff', `ff-${traceId}-${parentId}-01`],
  ['uppercase trace id', `00-${traceId.toUpperCase()}-${parentId}-01`],
  ['all-zero trace id', `00-${'0'.repeat(32)}-${parentId}-01`],
  ['all-zero parent id', `00-${traceId}-${'0'.repeat(16)}-01`],
  ['version 00 with an extra field', `00-${traceId}-${parentId}-01-extra`],
  ['a short trace id', `00-${traceId.slice(1)}-${parentId}-01`],
  ['a non-hex character', `00-${traceId.slice(0, -1)}g-${parentId}-01`],
  ['a future version without a dash after the flags', `cc-${traceId}-${parentId}-01.extra`],
  ['a wrong separator', `00_${traceId}_${parentId}_01`],
  ['a non-hex version', `0x-${traceId}-${parentId}-01`],
  ['uppercase flags', `00-${traceId}-${parentId}-0A`],
  [
    'two traceparent headers',
    ['traceparent', `00-${traceId}-${parentId}-01`, 'traceparent', `00-${traceId}-${parentId}-00`],
  ],
];

/** Ambient's `traceparent` policy: what it fills in from the header, and what it refuses. */
export const traceContextCases: ConformanceCase[] = [
  {
    id: 'traceparent-valid',
    title: "the W3C specification's valid traceparent examples fill traceId and spanId",
    profile: 'ambient',
    tags: [],
    needs: ['readTrace'],
    timeoutMs: timeoutFor(valid.length),
    async run({ server }) {
      const port = await server();
      for (const [what, value] of valid) {
        const response = await send(port, { path: '/trace', headers: { traceparent: value } });
        assert.deepEqual(response.json, { traceId, spanId: parentId }, what);
      }
    },
  },
  {
    id: 'traceparent-invalid',
    title: "the W3C specification's invalid traceparent examples are ignored",
    profile: 'ambient',
    tags: [],
    needs: ['readTrace'],
    timeoutMs: timeoutFor(invalid.length),
    async run({ server }) {
      const port = await server();
      for (const [what, value] of invalid) {
        const headers = typeof value === 'string' ? { traceparent: value } : value;
        const response = await send(port, { path: '/trace', headers });
        assert.equal(response.status, 200, what);
        const trace = response.json as { traceId?: unknown; spanId?: unknown };
        assert.equal(trace.traceId ?? undefined, undefined, `${what}: traceId`);
        assert.equal(trace.spanId ?? undefined, undefined, `${what}: spanId`);
      }
    },
  },
];

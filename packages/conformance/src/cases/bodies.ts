import assert from 'node:assert/strict';
import { send } from '../client.js';
import { echoedId, timeoutFor, type ConformanceCase } from '../case.js';
import type { BodyParserPlacement } from '../harness.js';
import { probeHeader, readingBody } from '../observations.js';

interface BodyKind {
  readonly name: string;
  readonly contentType: string;
  readonly chunks: string[];
  readonly expected: unknown;
  readonly chunked: boolean;
  /** A framework's JSON and urlencoded parsers read this type; the suite's own listeners read the others. */
  readonly frameworkParses: boolean;
}

const kinds: BodyKind[] = [
  {
    name: 'JSON',
    contentType: 'application/json',
    chunks: ['{"user":"ada",', '"roles":["admin"]}'],
    expected: { user: 'ada', roles: ['admin'] },
    chunked: false,
    frameworkParses: true,
  },
  {
    name: 'urlencoded',
    contentType: 'application/x-www-form-urlencoded',
    chunks: ['user=ada&', 'role=admin'],
    expected: { user: 'ada', role: 'admin' },
    chunked: false,
    frameworkParses: true,
  },
  {
    name: 'chunked raw',
    contentType: 'application/octet-stream',
    chunks: ['raw bytes, ', 'in three ', 'packets'],
    expected: 'raw bytes, in three packets',
    chunked: true,
    frameworkParses: false,
  },
];

/**
 * Bodies whose bytes arrive in later packets than the headers: the parser's `data`/`end` listeners then run
 * from the socket, the classic place where context is lost (expressjs/body-parser#422, nodejs/node#41285).
 * Run with every body-parser placement the harness supports; with none, the suite's own listeners read it.
 */
function bodyCase(kind: BodyKind, placement: BodyParserPlacement): ConformanceCase {
  return {
    id: `body-${kind.name.replace(' ', '-').toLowerCase()}-parser-${placement}`,
    title: `a ${kind.name} body arriving after the headers, framework parser: ${placement}`,
    profile: 'universal',
    tags: [],
    needs: [],
    timeoutMs: timeoutFor(),
    async run({ server, echoHeader, observations, probe }) {
      const port = await server(placement);
      const token = probe();
      const length = Buffer.byteLength(kind.chunks.join(''));
      const suiteReads = placement === 'none' || !kind.frameworkParses;
      const response = await send(port, {
        method: 'POST',
        path: '/body',
        headers: {
          [probeHeader]: token,
          'content-type': kind.contentType,
          ...(kind.chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(length) }),
        },
        body: kind.chunks,
        // Where the suite reads, the body follows once its listeners exist, so on any machine the bytes reach
        // them from the socket. A framework's parser gives no such signal: its body follows after a pause.
        ...(suiteReads ? { bodyAfter: () => observations.waitFor(token, readingBody) } : {}),
        bodyDelayMs: 15,
      });
      assert.equal(response.status, 200, response.text);
      const id = echoedId(response, echoHeader);
      const result = response.json as { body: unknown; seen: unknown[] };
      assert.deepEqual(result.body, kind.expected, 'the body must arrive intact');
      assert.ok(result.seen.length > 0);
      for (const seen of result.seen) assert.equal(seen, id, 'context after the body was read');
    },
  };
}

export function bodyCases(placements: readonly BodyParserPlacement[]): ConformanceCase[] {
  return placements.flatMap((placement) => kinds.map((kind) => bodyCase(kind, placement)));
}

import assert from 'node:assert/strict';
import http from 'node:http';
import { inParallel, send, sendRaw } from '../client.js';
import { echoedId, timeoutFor, type ConformanceCase } from '../case.js';

/** Ids the default rule honors: every allowed character (`A-Z a-z 0-9 - _ . : = + / @`), and the usual shapes. */
const validIds = [
  'abc-123',
  'a'.repeat(128),
  'req_1.2:3/4+5=6@host',
  'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789',
  '0190b6b4-5c1e-7c3a-9f7e-2b1d3c4e5f60',
  '01J9Z3T4C7M2',
  'dGhpcyBpcyBiYXNlNjQ=',
];

/** Incoming values that must be replaced, never echoed, logged or stored; each sent once unless listed twice. */
const invalidIds: Array<[string, readonly string[]]> = [
  ['too long (129 characters)', ['a'.repeat(129)]],
  ['non-ASCII', ['r\u00e9q-1']],
  ['a space', ['req 1']],
  ['a double quote', ['req"1']],
  ['a single quote', ["req'1"]],
  ['a tab', ['req\t1']],
  ['empty', ['']],
  ['sent twice', ['first', 'second']],
  ...['<', '>', ';', ',', '|', '`', '\\', '%'].map((character): [string, readonly string[]] => [
    `a ${JSON.stringify(character)}`,
    [`req${character}1`],
  ]),
  ['markup', ['semi;colon<script>']],
];

const uniqueRequests = 10_000;

/** Ambient's request-id policy (its default rule): the incoming header is the harness's `requestIdHeader`. */
export const requestIdCases: ConformanceCase[] = [
  {
    id: 'request-id-valid',
    title: 'valid incoming request ids are honored and echoed',
    profile: 'ambient',
    tags: [],
    needs: [],
    timeoutMs: timeoutFor(validIds.length),
    async run({ server, echoHeader, requestIdHeader }) {
      const port = await server();
      for (const id of validIds) {
        const response = await send(port, { path: '/id', headers: { [requestIdHeader]: id } });
        assert.equal(echoedId(response, echoHeader), id, `echo of ${JSON.stringify(id)}`);
        assert.equal(
          (response.json as { requestId: unknown }).requestId,
          id,
          `handler's view of ${JSON.stringify(id)}`,
        );
      }
    },
  },
  {
    id: 'request-id-invalid',
    title:
      'too long, non-ASCII, spaces, quotes, markup and shell characters, control characters, empty and ' +
      'duplicated ids are replaced',
    profile: 'ambient',
    tags: [],
    needs: [],
    timeoutMs: timeoutFor(invalidIds.length),
    async run({ server, echoHeader, requestIdHeader }) {
      const port = await server();
      for (const [what, raw] of invalidIds) {
        const response = await send(port, { path: '/id', headers: raw.flatMap((value) => [requestIdHeader, value]) });
        const id = echoedId(response, echoHeader);
        assert.ok(
          !raw.includes(id) && id !== raw.join(', '),
          `an id with ${what} was echoed as it came (${JSON.stringify(id.length > 20 ? `${id.slice(0, 20)}…` : id)})`,
        );
        assert.ok(
          id.length > 0 && id.length <= 128 && /^[A-Za-z0-9\-_.:=+/@]+$/.test(id),
          `the replacement for ${what} is not a safe id`,
        );
        assert.equal(
          (response.json as { requestId: unknown }).requestId,
          id,
          `the handler saw another id than the echo (${what})`,
        );
        for (const value of raw) {
          if (value.length > 0)
            assert.ok(!response.text.includes(value), `the raw value with ${what} reached the response body`);
        }
      }
    },
  },
  {
    id: 'request-id-crlf',
    title: 'CR/LF in an incoming id never reaches a response header, and the server keeps serving',
    profile: 'ambient',
    tags: [],
    needs: [],
    timeoutMs: timeoutFor(4),
    async run({ server, echoHeader, requestIdHeader }) {
      const port = await server();
      const attempts = ['abc\rInjected: yes', 'abc\r\n Injected: yes', 'abc\nInjected: yes'].map(
        (value) => `GET /id HTTP/1.1\r\nHost: localhost\r\n${requestIdHeader}: ${value}\r\nConnection: close\r\n\r\n`,
      );
      for (const attempt of attempts) {
        const answer = await sendRaw(port, attempt);
        const headerBlock = answer.split('\r\n\r\n')[0] ?? '';
        assert.ok(!/^injected:/im.test(headerBlock), `a header was injected: ${JSON.stringify(headerBlock)}`);
        const echoed = headerBlock
          .split('\r\n')
          .find((line) => line.toLowerCase().startsWith(`${echoHeader}:`))
          ?.slice(echoHeader.length + 1)
          .trim();
        if (echoed !== undefined) assert.ok(!echoed.includes('Injected'), `the raw value was echoed: ${echoed}`);
      }
      const after = await send(port, { path: '/id' });
      assert.equal(after.status, 200, 'the server must keep serving');
    },
  },
  {
    id: 'request-id-unique',
    title: `generated ids are unique over ${uniqueRequests.toLocaleString('en')} requests`,
    profile: 'ambient',
    tags: ['slow'],
    needs: [],
    timeoutMs: timeoutFor(uniqueRequests),
    async run({ server, echoHeader }) {
      const port = await server();
      const agent = new http.Agent({ keepAlive: true, maxSockets: 50 });
      try {
        const ids = await inParallel(uniqueRequests, 50, async () =>
          echoedId(await send(port, { path: '/id', agent }), echoHeader),
        );
        assert.equal(new Set(ids).size, uniqueRequests, 'duplicate request ids were generated');
      } finally {
        agent.destroy();
      }
    },
  },
];

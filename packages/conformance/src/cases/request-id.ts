import assert from 'node:assert/strict';
import http from 'node:http';
import { inParallel, send, sendRaw } from '../client.js';
import { echoedId, type ConformanceCase } from '../case.js';

const header = 'x-request-id';

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

/** Incoming values that must be replaced, never echoed, logged or stored. */
const invalidIds: Array<[string, readonly string[]]> = [
  ['too long (129 characters)', [header, 'a'.repeat(129)]],
  ['non-ASCII', [header, 'r\u00e9q-1']],
  ['a space', [header, 'req 1']],
  ['a double quote', [header, 'req"1']],
  ['a single quote', [header, "req'1"]],
  ['a tab', [header, 'req\t1']],
  ['empty', [header, '']],
  ['sent twice', [header, 'first', header, 'second']],
  ...['<', '>', ';', ',', '|', '`', '\\', '%'].map((character): [string, readonly string[]] => [
    `a ${JSON.stringify(character)}`,
    [header, `req${character}1`],
  ]),
  ['markup', [header, 'semi;colon<script>']],
];

export const requestIdCases: ConformanceCase[] = [
  {
    id: 'request-id-valid',
    title: 'valid incoming request ids are honored and echoed',
    timeoutMs: 10_000,
    async run({ server, echoHeader }) {
      const port = await server();
      for (const id of validIds) {
        const response = await send(port, { path: '/id', headers: { [header]: id } });
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
      'too long, non-ASCII, spaces, quotes, markup and shell characters, control characters, empty and duplicated ids are replaced',
    timeoutMs: 10_000,
    async run({ server, echoHeader }) {
      const port = await server();
      for (const [what, headers] of invalidIds) {
        const response = await send(port, { path: '/id', headers });
        const id = echoedId(response, echoHeader);
        const raw = headers.filter((_, i) => i % 2 === 1);
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
    timeoutMs: 10_000,
    async run({ server, echoHeader }) {
      const port = await server();
      const attempts = [
        'GET /id HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: abc\rInjected: yes\r\nConnection: close\r\n\r\n',
        'GET /id HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: abc\r\n Injected: yes\r\nConnection: close\r\n\r\n',
        'GET /id HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: abc\nInjected: yes\r\nConnection: close\r\n\r\n',
      ];
      for (const attempt of attempts) {
        const answer = await sendRaw(port, attempt);
        const headerBlock = answer.split('\r\n\r\n')[0] ?? '';
        assert.ok(!/^injected:/im.test(headerBlock), `a header was injected: ${JSON.stringify(headerBlock)}`);
        const echoed = new RegExp(`^${echoHeader}: (.*)$`, 'im').exec(headerBlock)?.[1];
        if (echoed !== undefined) assert.ok(!echoed.includes('Injected'), `the raw value was echoed: ${echoed}`);
      }
      const after = await send(port, { path: '/id' });
      assert.equal(after.status, 200, 'the server must keep serving');
    },
  },
  {
    id: 'request-id-unique',
    title: 'generated ids are unique over 10,000 requests',
    timeoutMs: 120_000,
    async run({ server, echoHeader }) {
      const port = await server();
      const agent = new http.Agent({ keepAlive: true, maxSockets: 50 });
      try {
        const ids = await inParallel(10_000, 50, async () =>
          echoedId(await send(port, { path: '/id', agent }), echoHeader),
        );
        assert.equal(new Set(ids).size, 10_000, 'duplicate request ids were generated');
      } finally {
        agent.destroy();
      }
    },
  },
];

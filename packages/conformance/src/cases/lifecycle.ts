import assert from 'node:assert/strict';
import { send } from '../client.js';
import { echoedId, type ConformanceCase } from '../case.js';
import { probeHeader } from '../observations.js';

function errorCase(id: string, path: string, what: string): ConformanceCase {
  return {
    id,
    title: `${what} in a handler: the error path sees the context, and the response carries the request id`,
    timeoutMs: 10_000,
    async run({ server, echoHeader, observations, probe }) {
      const port = await server();
      const token = probe();
      const response = await send(port, { path, headers: { [probeHeader]: token } });
      assert.equal(response.status, 500, response.text);
      const requestId = echoedId(response, echoHeader);
      assert.equal(
        (response.json as { requestId?: unknown } | undefined)?.requestId,
        requestId,
        "the error handler's view",
      );
      assert.equal(observations.get(token, 'error'), requestId);
      assert.equal(await observations.waitFor(token, 'finish'), requestId, 'the finish listener after an error');
    },
  };
}

export const lifecycleCases: ConformanceCase[] = [
  {
    id: 'client-abort',
    title: 'a client that aborts mid-request: the close listener still sees the context; the server keeps serving',
    timeoutMs: 10_000,
    async run({ server, observations, probe }) {
      const port = await server();
      const token = probe();
      await assert.rejects(send(port, { path: '/slow', headers: { [probeHeader]: token }, abortAfterMs: 50 }));
      const seenInMiddleware = await observations.waitFor(token, 'middleware');
      assert.equal(typeof seenInMiddleware, 'string', 'the middleware saw a request id');
      assert.equal(await observations.waitFor(token, 'close'), seenInMiddleware, 'the close listener');
      const after = await send(port, { path: '/id' });
      assert.equal(after.status, 200, 'the server must keep serving');
    },
  },
  errorCase('error-thrown', '/throw', 'a thrown error'),
  errorCase('error-rejected', '/reject', 'a rejected promise'),
];

import assert from 'node:assert/strict';
import { send } from '../client.js';
import { echoedId, timeoutFor, type ConformanceCase } from '../case.js';
import { probeHeader } from '../observations.js';

function errorCase(id: string, path: string, what: string): ConformanceCase {
  return {
    id,
    title: `${what} in a handler: the error path sees the context, and the response carries the request id`,
    profile: 'universal',
    tags: [],
    needs: [],
    timeoutMs: timeoutFor(),
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

const clientAbort: ConformanceCase = {
  id: 'client-abort',
  title: 'a client that aborts mid-request: the close listener still sees the context; the server keeps serving',
  profile: 'universal',
  tags: [],
  needs: [],
  timeoutMs: timeoutFor(2),
  async run({ server, observations, probe }) {
    const port = await server();
    const token = probe();
    const abort = new AbortController();
    const pending = send(port, { path: '/slow', headers: { [probeHeader]: token }, signal: abort.signal });
    pending.catch(() => undefined); // awaited below; this keeps an early failure from going unhandled
    // Abort once the request is inside the app (not after a fixed delay): on a slow machine a timed abort can
    // come before the server saw anything, or after it answered. /slow answers only later, on a timer.
    let seenInMiddleware: unknown;
    try {
      seenInMiddleware = await observations.waitFor(token, 'middleware');
    } finally {
      abort.abort();
    }
    await assert.rejects(pending);
    assert.equal(typeof seenInMiddleware, 'string', 'the middleware saw a request id');
    assert.equal(await observations.waitFor(token, 'close'), seenInMiddleware, 'the close listener');
    const after = await send(port, { path: '/id' });
    assert.equal(after.status, 200, 'the server must keep serving');
  },
};

export const lifecycleCases: ConformanceCase[] = [
  clientAbort,
  errorCase('error-thrown', '/throw', 'a thrown error'),
  errorCase('error-rejected', '/reject', 'a rejected promise'),
];

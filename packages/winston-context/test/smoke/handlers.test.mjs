// winston's exceptionHandlers and rejectionHandlers log a crash with the ids of the request it happened in: a
// real uncaught exception and a real unhandled rejection, each in a process of its own, which winston ends.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const fixture = fileURLToPath(new URL('fixtures/crash.mjs', import.meta.url));

for (const [kind, message] of [
  ['exception', 'thrown in the request'],
  ['rejection', 'rejected in the request'],
]) {
  test(`the ${kind} handler's line carries the request's ids`, () => {
    const child = spawnSync(process.execPath, [fixture, kind], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(child.status, 1, child.stderr);
    const lines = child.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    const crash = `${kind === 'exception' ? 'uncaughtException' : 'unhandledRejection'}: ${message}`;
    const seen = lines.map(({ message: text, requestId, correlationId }) => ({
      text: text.split('\n')[0],
      requestId,
      correlationId,
    }));
    assert.deepEqual(seen.slice(0, 2), [
      { text: 'before any request', requestId: undefined, correlationId: undefined },
      { text: 'in the request', requestId: 'req-crash', correlationId: 'chain-crash' },
    ]);
    // The handler's line (winston 3.19 also hands a rejection's to the logger's other transports).
    assert.ok(seen.length >= 3);
    for (const line of seen.slice(2)) {
      assert.deepEqual(line, { text: crash, requestId: 'req-crash', correlationId: 'chain-crash' });
    }
    assert.ok(lines.slice(2).every((line) => line[kind] === true));
  });
}

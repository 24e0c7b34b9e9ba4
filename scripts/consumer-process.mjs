// The scaffolding of the brokers' end-to-end smoke tests (amqp, nats, mqtt, sqs, kafka): a consumer fixture in a
// child process that reports each message it handled over IPC and logs with pino to a file, an express app on
// 127.0.0.1 that the test posts to, and the 200 concurrent requests' headers. Only the scaffolding lives here:
// what each test sends, in what order, and what it asserts stay in the test.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh, empty directory's `consumer.log`, for a consumer's pino destination: `ambient-<name>-…/consumer.log`. */
export function tempLogFile(name) {
  return join(mkdtempSync(join(tmpdir(), `ambient-${name}-`)), 'consumer.log');
}

/** The JSON lines of a pino log file, parsed, in order. */
export function readLogLines(file) {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

/**
 * Forks the consumer fixture at `url` with `env` added to this process's environment, and resolves once it sent
 * its first message ('ready': it is subscribed, so nothing published from now on is missed). The fixture sends
 * `{ handled, ... }` once per message it handled and exits on 'stop'.
 *
 * Resolves to `{ child, reports, handled(expected), stop() }`: `child` for what a test sends the fixture itself
 * (a 'start', a batch of records) or ends it with; `reports`, every `{ handled }` message so far, as sent;
 * `handled(expected)`, a promise that `expected` messages were handled (counted from the start, so it can be asked
 * for before or after they arrive); `stop()`, which sends 'stop' and resolves when the process exited, its log
 * written.
 */
export async function forkConsumer(url, env) {
  const child = fork(url, { env: { ...process.env, ...env } });
  const reports = [];
  const waiting = [];
  // Listening before the first message: a report sent right after 'ready' must be counted.
  child.on('message', (message) => {
    if (message?.handled === undefined) return;
    reports.push(message);
    for (const wait of waiting) if (reports.length >= wait.expected) wait.resolve();
  });
  await once(child, 'message');
  return {
    child,
    reports,
    handled: (expected) =>
      reports.length >= expected ? Promise.resolve() : new Promise((resolve) => waiting.push({ expected, resolve })),
    async stop() {
      child.send('stop');
      await once(child, 'exit');
    },
  };
}

/**
 * Serves the express `app` on 127.0.0.1 at a free port. Resolves to `{ post, close }`: `post(path, body, headers)`
 * posts `body` as JSON and resolves to the JSON answered, with `header` added, the response's x-request-id (the
 * request's id as expressContext() took or made it, which is what a consumer's run names as its causation).
 * `onResponse(response)`, where given, sees each response before its body is read (an assertion on its status,
 * which then fails on the status rather than on parsing an error page).
 */
export async function serve(app, { onResponse } = {}) {
  const server = http.createServer(app).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    async post(path, body, headers = {}) {
      const response = await fetch(`http://127.0.0.1:${server.address().port}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
      onResponse?.(response);
      return { ...(await response.json()), header: response.headers.get('x-request-id') };
    },
    close: () => server.close(),
  };
}

/**
 * The headers of the `n`th of the concurrent requests: each its own span of the trace `traceId` (span id n + 1,
 * so never the all-zero id W3C forbids), and every even one an x-correlation-id of its own, so a test sees both a
 * chain the client names and one the request starts.
 */
export function requestHeaders(n, traceId) {
  return {
    traceparent: `00-${traceId}-${String(n + 1).padStart(16, '0')}-01`,
    ...(n % 2 === 0 ? { 'x-correlation-id': `chain-${n}` } : {}),
  };
}

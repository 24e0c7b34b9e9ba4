import http, { type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import net from 'node:net';

export interface ClientRequestSpec {
  readonly method?: string;
  readonly path: string;
  /** An object, or a flat [name, value, name, value] array to send a header twice. */
  readonly headers?: OutgoingHttpHeaders | readonly string[];
  /** Body chunks, each written separately; with `bodyDelayMs`, after the headers have gone out. */
  readonly body?: ReadonlyArray<string | Buffer>;
  readonly bodyDelayMs?: number;
  readonly agent?: http.Agent | false;
  /** Destroys the request this many ms after sending it (a client that gives up). */
  readonly abortAfterMs?: number;
  /** Fails the request when no complete response arrived by then (default 10 s): a lost response is a failure, not a hang. */
  readonly timeoutMs?: number;
}

export interface ClientResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  readonly json: unknown;
  /** The client-side port of the connection: equal ports mean one reused keep-alive socket. */
  readonly localPort: number | undefined;
}

/** One HTTP/1.1 request to 127.0.0.1:port through node:http. */
export function send(port: number, spec: ClientRequestSpec): Promise<ClientResponse> {
  return new Promise((resolve, reject) => {
    const request = http.request({
      host: '127.0.0.1',
      port,
      method: spec.method ?? 'GET',
      path: spec.path,
      // In the array form Node adds no Host header, which HTTP/1.1 servers must answer with 400.
      headers: (isHeaderList(spec.headers) &&
      !spec.headers.some((name, i) => i % 2 === 0 && name.toLowerCase() === 'host')
        ? ['host', `127.0.0.1:${port}`, ...spec.headers]
        : spec.headers) as OutgoingHttpHeaders,
      agent: spec.agent ?? false,
    });
    let localPort: number | undefined;
    request.on('socket', (socket) => {
      const remember = () => (localPort = socket.localPort);
      if (socket.localPort !== undefined) remember();
      else socket.once('connect', remember);
    });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = text.length > 0 ? JSON.parse(text) : undefined;
        } catch {
          json = undefined;
        }
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json, localPort });
      });
      response.on('error', reject);
    });
    request.on('error', reject);
    request.setTimeout(spec.timeoutMs ?? 10_000, () =>
      request.destroy(
        new Error(`no response to ${spec.method ?? 'GET'} ${spec.path} within ${spec.timeoutMs ?? 10_000} ms`),
      ),
    );
    if (spec.abortAfterMs !== undefined)
      setTimeout(() => request.destroy(new Error('aborted by the client')), spec.abortAfterMs);
    const body = spec.body ?? [];
    if (spec.bodyDelayMs === undefined) {
      for (const chunk of body) request.write(chunk);
      request.end();
      return;
    }
    request.flushHeaders();
    void (async () => {
      for (const chunk of body) {
        await new Promise((wait) => setTimeout(wait, spec.bodyDelayMs));
        request.write(chunk);
      }
      request.end();
    })();
  });
}

/** Writes `raw` bytes to a fresh connection and returns everything the server answers before closing. */
export function sendRaw(port: number, raw: string | Buffer, timeoutMs = 2000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    socket.setTimeout(timeoutMs, () => socket.end());
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.on('error', reject);
    socket.write(raw);
  });
}

/** Runs `count` tasks, at most `concurrency` at a time, and returns their results in order. */
export async function inParallel<T>(
  count: number,
  concurrency: number,
  task: (index: number) => Promise<T>,
): Promise<T[]> {
  const results = new Array<T>(count);
  let next = 0;
  async function worker(): Promise<void> {
    while (next < count) {
      const index = next++;
      results[index] = await task(index);
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return results;
}

/** `Array.isArray` narrows a readonly array to `any[]` (microsoft/TypeScript#17002). */
function isHeaderList(headers: ClientRequestSpec['headers']): headers is readonly string[] {
  return Array.isArray(headers);
}

import http, { type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import net from 'node:net';

export interface ClientRequestSpec {
  readonly method?: string;
  readonly path: string;
  /** An object, or a flat [name, value, name, value] array to send a header twice. */
  readonly headers?: OutgoingHttpHeaders | readonly string[];
  /**
   * Body chunks, each written separately. With `bodyAfter` or `bodyDelayMs` the headers go out first and the
   * chunks follow in later packets.
   */
  readonly body?: ReadonlyArray<string | Buffer>;
  /**
   * Resolves when the body may follow the headers, for instance once the server says it is reading it: the
   * body then arrives after the server's listeners exist however slow the machine is.
   */
  readonly bodyAfter?: () => Promise<unknown>;
  /** Waits this long before each chunk (after `bodyAfter`, before every chunk but the first). */
  readonly bodyDelayMs?: number;
  readonly agent?: http.Agent | false;
  /** Aborting destroys the request: a client that gives up. */
  readonly signal?: AbortSignal;
  /** Destroys the request this many ms after sending it. */
  readonly abortAfterMs?: number;
  /**
   * Fails the request when its socket stays idle this long. None by default: how long a response takes
   * depends on the machine, so a bound belongs to the whole case (see timeoutFor), never to one request.
   */
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
      ...(spec.signal === undefined ? {} : { signal: spec.signal }),
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
    const { timeoutMs } = spec;
    if (timeoutMs !== undefined)
      request.setTimeout(timeoutMs, () =>
        request.destroy(new Error(`no response to ${spec.method ?? 'GET'} ${spec.path} within ${timeoutMs} ms`)),
      );
    if (spec.abortAfterMs !== undefined)
      setTimeout(() => request.destroy(new Error('aborted by the client')), spec.abortAfterMs);
    const body = spec.body ?? [];
    if (spec.bodyAfter === undefined && spec.bodyDelayMs === undefined) {
      for (const chunk of body) request.write(chunk);
      request.end();
      return;
    }
    request.flushHeaders();
    void (async () => {
      await spec.bodyAfter?.();
      for (const [index, chunk] of body.entries()) {
        if (spec.bodyDelayMs !== undefined && (index > 0 || spec.bodyAfter === undefined)) {
          await new Promise((wait) => setTimeout(wait, spec.bodyDelayMs));
        }
        request.write(chunk);
      }
      request.end();
    })().catch((error: unknown) => request.destroy(error instanceof Error ? error : new Error(String(error))));
  });
}

/**
 * Writes `raw` bytes to a fresh connection and returns everything the server answers before closing. After
 * `timeoutMs` of silence it half-closes the connection, for a server that keeps it open.
 */
export function sendRaw(port: number, raw: string | Buffer, timeoutMs = 30_000): Promise<string> {
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

import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * What an adapter's test hands the suite: how to serve the suite's app through the library under test, and
 * how to read that library's values. Everything else (routes, requests, assertions) is the suite's.
 */
export interface ConformanceHarness {
  /** Shown in test names and reports, e.g. "express 5 + @ambient/express-context". */
  readonly name: string;
  /**
   * Starts a server on 127.0.0.1, port 0, that puts the library's context middleware first and then serves
   * `app` (see ConformanceApp for the order). With `bodyParser` "before" or "after", the framework's JSON
   * and urlencoded parsers are mounted before or after the context middleware (for those two types only: a
   * body of any other type is left for the suite to read).
   */
  start(app: ConformanceApp, options: StartOptions): Promise<RunningServer>;
  /** The body-parser placements this framework can test; default `['none']` (no framework parser). */
  readonly bodyParsers?: readonly BodyParserPlacement[];
  /**
   * The request header a client sends its own request id in; default `x-request-id`. The ambient profile's
   * request-id cases send their ids there.
   */
  readonly requestIdHeader?: string;
  /** The response header echoing the request id; default: `requestIdHeader`. */
  readonly echoHeader?: string;
  /** The current request's id as the library sees it; `undefined` outside any request. */
  readRequestId(): string | undefined;
  /** The current W3C trace id and parent span id, where the library reads `traceparent`. */
  readTrace?(): { traceId: string | undefined; spanId: string | undefined };
  /** Stores a value in the current request's scope. Outside any request it throws (the ambient profile checks). */
  setValue?(key: string, value: unknown): void;
  /** Reads a value stored with setValue in the current request's scope. */
  getValue?(key: string): unknown;
}

export type BodyParserPlacement = 'none' | 'before' | 'after';

export interface StartOptions {
  readonly bodyParser: BodyParserPlacement;
}

export interface RunningServer {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * The suite's application, framework-neutral. A harness wires it as:
 *   1. the library's context middleware (and the framework's body parsers, per StartOptions),
 *   2. `await app.middleware(req, res)` for every request,
 *   3. `app.handle(request)` for every path and method, sending `{ status, body }` as JSON with the framework;
 *      it may throw synchronously or reject,
 *   4. the framework's error handler, sending `app.handleError(error)` as JSON.
 */
export interface ConformanceApp {
  middleware(req: IncomingMessage, res: ServerResponse): Promise<void>;
  handle(request: AppRequest): Promise<AppResponse>;
  handleError(error: unknown): AppResponse;
}

export interface AppRequest {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** Path without the query string. */
  readonly path: string;
  /** The body as the framework parsed it; `undefined` where the framework did not parse it. */
  readonly body?: unknown;
}

export interface AppResponse {
  readonly status: number;
  readonly body: unknown;
}

import { EventEmitter } from 'node:events';
import { readdir, stat } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import type { AppRequest, AppResponse, ConformanceApp, ConformanceHarness } from './harness.js';
import { probeHeader, readingBody, type Observations } from './observations.js';

/** An error a route throws on purpose; it carries the probe so the error handler can report under it. */
export class RouteError extends Error {
  constructor(
    message: string,
    readonly probe: string | undefined,
  ) {
    super(message);
    this.name = 'RouteError';
  }
}

/** Objects a request stores in its scope; collected means the scope was released. */
export interface RetentionTracker {
  created: number;
  collected: number;
  readonly registry: FinalizationRegistry<null>;
  /** The soak route's markers, each under its request's label, so a report can name the one retained. */
  readonly labelled: LabelledRetention;
}

export interface LabelledRetention {
  /** The labels whose marker has not been collected yet. */
  readonly live: ReadonlySet<string>;
  track(marker: object, label: string): void;
}

/** The header a soak request carries its label in: the run's id and the request's ordinal. */
export const soakLabelHeader = 'x-conformance-soak';

export function createRetentionTracker(): RetentionTracker {
  const live = new Set<string>();
  const labelled = new FinalizationRegistry<string>((label) => live.delete(label));
  const tracker: RetentionTracker = {
    created: 0,
    collected: 0,
    registry: new FinalizationRegistry(() => {
      tracker.collected++;
    }),
    labelled: {
      live,
      track(marker, label) {
        live.add(label);
        labelled.register(marker, label);
      },
    },
  };
  return tracker;
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export function createConformanceApp(
  harness: ConformanceHarness,
  observations: Observations,
  retention: RetentionTracker,
): ConformanceApp {
  const read = () => harness.readRequestId();

  async function route(request: AppRequest, probe: string | undefined): Promise<AppResponse> {
    switch (request.path) {
      case '/id':
        return ok({ requestId: read() });
      case '/everywhere':
        return ok({ seen: await everywhere(request, read, () => observations.record(probe, readingBody, true)) });
      case '/delay': {
        const seen = [read()];
        await delay(Math.random() * 8);
        seen.push(read());
        await nextTurn();
        seen.push(read());
        await delay(Math.random() * 4);
        seen.push(read());
        return ok({ seen });
      }
      case '/body': {
        const seenAtHandler = read();
        if (request.body !== undefined) return ok({ body: request.body, parsedBy: 'framework', seen: [seenAtHandler] });
        const raw = await readBodyWithListeners(request.req, read, () => observations.record(probe, readingBody, true));
        return ok({
          body: parseBody(request.req, raw.text),
          parsedBy: 'listeners',
          seen: [seenAtHandler, ...raw.seen],
        });
      }
      case '/values':
        return ok({
          requestId: read(),
          valueAtStart: observations.get(probe ?? '', 'valueAtStart') ?? null,
          value: harness.getValue?.('user') ?? null,
        });
      case '/trace':
        return ok(harness.readTrace?.() ?? {});
      case '/slow':
        await delay(400);
        return ok({ requestId: read() });
      case '/reject':
        await delay(2);
        throw new RouteError('rejected by the handler', probe);
      case '/memory': {
        const marker = { requestId: read() };
        harness.setValue?.('marker', marker);
        retention.registry.register(marker, null);
        retention.created++;
        // eslint-disable-next-line @typescript-eslint/await-thenable -- awaiting a plain value is a hop under test
        await null;
        return ok({ requestId: read() });
      }
      case '/soak':
        return ok(await soak(request, harness, retention.labelled));
      default:
        return { status: 404, body: { error: `no route ${request.path}` } };
    }
  }

  return {
    async middleware(req, res) {
      const probe = headerOf(req, probeHeader);
      observations.record(probe, 'middleware', read());
      res.on('finish', () => observations.record(probe, 'finish', read()));
      res.on('close', () => observations.record(probe, 'close', read()));
      if (harness.setValue !== undefined && harness.getValue !== undefined) {
        observations.record(probe, 'valueAtStart', harness.getValue('user'));
        await nextTurn();
        harness.setValue('user', `user of ${read()}`);
      }
    },

    handle(request) {
      const probe = headerOf(request.req, probeHeader);
      // Thrown synchronously, before any promise exists: the framework's synchronous error path.
      if (request.path === '/throw') throw new RouteError('thrown by the handler', probe);
      return route(request, probe);
    },

    handleError(error) {
      const probe = error instanceof RouteError ? error.probe : undefined;
      observations.record(probe, 'error', read());
      return {
        status: 500,
        body: { error: error instanceof Error ? error.message : String(error), requestId: read() },
      };
    },
  };
}

function ok(body: unknown): AppResponse {
  return { status: 200, body };
}

function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** Reads the request id at every kind of async hop a request handler meets. */
async function everywhere(
  request: AppRequest,
  read: () => string | undefined,
  onListening: () => void,
): Promise<Record<string, unknown>> {
  const seen: Record<string, unknown> = { handler: read() };
  const body = await readBodyWithListeners(request.req, read, onListening);
  seen.bodyData = body.seen.slice(0, -1);
  seen.bodyEnd = body.seen.at(-1);
  seen.afterAwaits = await serviceAfterAwaits(read);
  seen.timer = await new Promise((resolve) => setTimeout(() => resolve(read()), 2));
  const emitter = new EventEmitter();
  seen.emitter = await new Promise((resolve) => {
    emitter.once('ready', () => resolve(read()));
    setImmediate(() => emitter.emit('ready'));
  });
  seen.fsCallback = await new Promise((resolve, reject) =>
    stat(process.cwd(), (error) => (error ? reject(error) : resolve(read()))),
  );
  seen.thenable = await {
    then(resolve: (value: unknown) => void) {
      setTimeout(() => resolve(read()), 1);
    },
  };
  return seen;
}

/** What the soak route answers: the id it saw first, and the hops after which its scope was not its own. */
export interface SoakReply {
  readonly requestId: string | undefined;
  readonly label: string;
  readonly mismatches: number;
  readonly crossedAt: readonly string[];
}

/**
 * Stores a marker in the request's scope, then crosses every kind of hop with random 0-5 ms pauses between
 * them, checking after each that the scope still holds this request's id and marker. The marker is tracked
 * under the request's label, so the soak case can tell which scope outlived its request.
 */
async function soak(
  request: AppRequest,
  harness: ConformanceHarness,
  retention: LabelledRetention,
): Promise<SoakReply> {
  const label = headerOf(request.req, soakLabelHeader) ?? '';
  const requestId = harness.readRequestId();
  const marker = { label };
  harness.setValue?.('soak', marker);
  retention.track(marker, label);
  const crossedAt: string[] = [];
  const check = (hop: string) => {
    if (harness.readRequestId() !== requestId || harness.getValue?.('soak') !== marker) crossedAt.push(hop);
  };
  const pause = async (after: string) => {
    await delay(Math.random() * 5);
    check(`pause after ${after}`);
  };
  check('handler');
  await pause('handler');
  await new Promise((resolve) => setTimeout(resolve, 1));
  check('timer');
  await pause('timer');
  await nextTurn();
  check('immediate');
  await pause('immediate');
  await new Promise((resolve, reject) => readdir(process.cwd(), (error) => (error ? reject(error) : resolve(null))));
  check('fs');
  await pause('fs');
  const emitter = new EventEmitter();
  await new Promise<void>((resolve) => {
    emitter.once('hop', () => {
      check('emitter listener');
      resolve();
    });
    setImmediate(() => emitter.emit('hop'));
  });
  await pause('emitter');
  await {
    then(resolve: (value: unknown) => void) {
      setTimeout(() => resolve(null), 1);
    },
  };
  check('thenable');
  await pause('thenable');
  if (request.req.method === 'POST') {
    // A framework that parsed the body already read it in its own hooks; otherwise the suite's listeners do.
    let body = request.body;
    if (body === undefined) {
      const raw = await readBodyWithListeners(
        request.req,
        () => harness.readRequestId(),
        () => undefined,
      );
      if (raw.seen.some((seen) => seen !== requestId)) crossedAt.push('body listeners');
      body = raw.text;
    }
    check('body read');
    if (body !== label) crossedAt.push(`body read (got ${JSON.stringify(body)})`);
    await pause('body read');
  }
  return { requestId, label, mismatches: crossedAt.length, crossedAt: crossedAt.slice(0, 5) };
}

async function serviceAfterAwaits(read: () => string | undefined): Promise<string | undefined> {
  // eslint-disable-next-line @typescript-eslint/await-thenable -- awaiting a plain value is a hop under test
  await null;
  await delay(1);
  await Promise.resolve();
  return read();
}

/**
 * The callback-style body read that loses context in every peer: `req.on('data')`, `req.on('end')`.
 * `onListening` runs once the listeners exist, so a client can send the body only then: its bytes then
 * reach the listeners from the socket, not from a buffer drained in the handler's context.
 */
function readBodyWithListeners(
  req: IncomingMessage,
  read: () => string | undefined,
  onListening: () => void,
): Promise<{ text: string; seen: unknown[] }> {
  return new Promise((resolve, reject) => {
    if (req.readableEnded) {
      resolve({ text: '', seen: [read()] });
      return;
    }
    const chunks: Buffer[] = [];
    const seen: unknown[] = [];
    req.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      seen.push(read());
    });
    req.on('end', () => {
      seen.push(read());
      resolve({ text: Buffer.concat(chunks).toString('utf8'), seen });
    });
    req.on('error', reject);
    onListening();
  });
}

function parseBody(req: IncomingMessage, text: string): unknown {
  const type = req.headers['content-type'] ?? '';
  if (type.startsWith('application/json')) return JSON.parse(text) as unknown;
  if (type.startsWith('application/x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(text));
  return text;
}

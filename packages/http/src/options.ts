import type { IncomingMessage, ServerResponse } from 'node:http';
import { errors } from './errors.js';
import { isValidRequestId, uuidv7 } from './request-id.js';

/** Where outgoing requests made inside a request may carry its request id and traceparent. */
export interface PropagationOptions {
  /**
   * Destination origins (`scheme://host[:port]`) that may receive the ids, or a predicate over the origin.
   * Nothing else does: internal ids never reach third parties by default.
   */
  allowedOrigins: ReadonlyArray<string | URL> | ((origin: string) => boolean);
  /** The outgoing header for the request id; default: the incoming request-id header, or `x-request-id`. */
  requestIdHeader?: string;
}

/** The HTTP rules every Ambient adapter shares. */
export interface RequestContextOptions {
  /** The incoming header to take a request id from (default `x-request-id`); `false` never trusts one. */
  requestIdHeader?: string | false;
  /** Decides whether an incoming id is kept; default `isValidRequestId`: 1–128 of `A–Z a–z 0–9 - _ . : = + / @`. */
  validateRequestId?: (requestId: string) => boolean;
  /** Makes a request id where none (valid) came in; default: a time-ordered UUIDv7. */
  generateRequestId?: () => string;
  /** Echo the request id in a response header: `true` (default) uses the incoming header's name. */
  echoRequestId?: boolean | string;
  /** Read W3C `traceparent` into `traceId`/`spanId` (default `true`). */
  traceContext?: boolean;
  /** Opt-in outgoing propagation to an allow-list of origins. */
  propagation?: PropagationOptions;
}

/** Options of `httpContext()`: the shared rules, plus what happens to an error the listener throws. */
export interface HttpContextOptions extends RequestContextOptions {
  /**
   * Called, inside the request's scope, with an error the listener threw or a promise it returned rejected
   * with. Default: log it to stderr with the request id, answer 500 if nothing was sent yet, else end the
   * response.
   */
  onError?: (error: unknown, req: IncomingMessage, res: ServerResponse) => void;
}

/** The options, checked and resolved once, at construction. */
export interface RequestPolicy {
  readonly incomingHeader: string | undefined;
  readonly validate: (requestId: string) => boolean;
  readonly generate: () => string;
  readonly echoHeader: string | undefined;
  readonly traceContext: boolean;
  readonly propagation: OutgoingPolicy | undefined;
}

export interface OutgoingPolicy {
  readonly isAllowed: (origin: string) => boolean;
  readonly requestIdHeader: string;
}

const defaultHeader = 'x-request-id';
const sharedKeys = [
  'requestIdHeader',
  'validateRequestId',
  'generateRequestId',
  'echoRequestId',
  'traceContext',
  'propagation',
] as const;

/** RFC 9110 token characters: what a header name may be made of. */
const headerName = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Checks options eagerly, so that a typo fails when the server is built, not on the first request. `extraKeys`
 * are the adapter's own options, which it checks itself.
 */
export function createRequestPolicy(options: unknown, where: string, extraKeys: readonly string[] = []): RequestPolicy {
  if (options === undefined) options = {};
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw errors.invalidOption(where, 'options', 'an object or undefined', options);
  }
  const known = [...sharedKeys, ...extraKeys];
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) throw errors.unknownOption(where, key, known);
  }
  const given = options as RequestContextOptions;

  const incoming = given.requestIdHeader ?? defaultHeader;
  if (incoming !== false && (typeof incoming !== 'string' || !headerName.test(incoming))) {
    throw errors.invalidOption(where, 'requestIdHeader', 'a header name or false', incoming);
  }
  const validate = given.validateRequestId ?? isValidRequestId;
  if (typeof validate !== 'function') {
    throw errors.invalidOption(where, 'validateRequestId', 'a function (requestId: string) => boolean', validate);
  }
  const generate = given.generateRequestId ?? uuidv7;
  if (typeof generate !== 'function') {
    throw errors.invalidOption(where, 'generateRequestId', 'a function () => string', generate);
  }
  const echo = given.echoRequestId ?? true;
  if (typeof echo !== 'boolean' && (typeof echo !== 'string' || !headerName.test(echo))) {
    throw errors.invalidOption(where, 'echoRequestId', 'a boolean or a header name', echo);
  }
  const traceContext = given.traceContext ?? true;
  if (typeof traceContext !== 'boolean') {
    throw errors.invalidOption(where, 'traceContext', 'a boolean', traceContext);
  }
  const incomingHeader = incoming === false ? undefined : incoming.toLowerCase();
  return {
    incomingHeader,
    validate,
    generate: safeGenerator(generate),
    echoHeader: echo === false ? undefined : echo === true ? (incomingHeader ?? defaultHeader) : echo.toLowerCase(),
    traceContext,
    propagation:
      given.propagation === undefined
        ? undefined
        : createOutgoingPolicy(given.propagation, where, incomingHeader ?? defaultHeader),
  };
}

function createOutgoingPolicy(options: PropagationOptions, where: string, fallbackHeader: string): OutgoingPolicy {
  if (typeof options !== 'object' || options === null) {
    throw errors.invalidOption(where, 'propagation', 'an object { allowedOrigins }', options);
  }
  const { allowedOrigins, requestIdHeader = fallbackHeader } = options;
  if (typeof requestIdHeader !== 'string' || !headerName.test(requestIdHeader)) {
    throw errors.invalidOption(where, 'propagation.requestIdHeader', 'a header name', requestIdHeader);
  }
  if (typeof allowedOrigins === 'function') {
    return { isAllowed: allowedOrigins, requestIdHeader: requestIdHeader.toLowerCase() };
  }
  if (!Array.isArray(allowedOrigins)) {
    throw errors.invalidOption(
      where,
      'propagation.allowedOrigins',
      'an array of origins or a function',
      allowedOrigins,
    );
  }
  const origins = new Set<string>();
  for (const entry of allowedOrigins as ReadonlyArray<unknown>) {
    origins.add(originOf(entry, where));
  }
  return { isAllowed: (origin) => origins.has(origin), requestIdHeader: requestIdHeader.toLowerCase() };
}

function originOf(entry: unknown, where: string): string {
  const expected = 'http(s) origins such as "http://127.0.0.1:8080" or URL objects';
  let url: URL;
  try {
    url = entry instanceof URL ? entry : new URL(String(entry));
  } catch (cause) {
    throw Object.assign(errors.invalidOption(where, 'propagation.allowedOrigins', expected, entry), { cause });
  }
  if (
    (typeof entry !== 'string' && !(entry instanceof URL)) ||
    (url.protocol !== 'http:' && url.protocol !== 'https:')
  ) {
    throw errors.invalidOption(where, 'propagation.allowedOrigins', expected, entry);
  }
  return url.origin;
}

/**
 * A user generator runs on every request, where throwing would fail the request: if it returns no usable id
 * (not a string, or empty), the default UUIDv7 is used and a warning is emitted once.
 */
function safeGenerator(generate: () => string): () => string {
  if (generate === uuidv7) return uuidv7;
  let warned = false;
  return () => {
    const id: unknown = generate();
    if (typeof id === 'string' && id.length > 0) return id;
    if (!warned) {
      warned = true;
      process.emitWarning(
        `generateRequestId returned ${typeof id === 'string' ? 'an empty string' : typeof id}; using a UUIDv7 instead.`,
        { code: 'AMBIENT_W_BAD_GENERATED_ID' },
      );
    }
    return uuidv7();
  };
}

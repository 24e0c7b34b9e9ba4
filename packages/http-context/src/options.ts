import type { IncomingMessage, ServerResponse } from 'node:http';
import { isValidRequestId, uuidv7 } from '@ambient/correlation';
import { readOptions, rule, rules, type OptionRule, type OptionShape } from '@ambient/core/internal';
import { errors, warnings } from './errors.js';
import { loadLazyGlobalsOutsideAnyScope } from './lazy-globals.js';

/** Where outgoing requests made inside a request may carry its request id and traceparent. */
export interface PropagationOptions {
  /**
   * Destination origins (`scheme://host[:port]`) that may receive the ids, or a predicate over the origin.
   * Nothing else does: internal ids never reach third parties by default.
   */
  allowedOrigins: ReadonlyArray<string | URL> | ((origin: string) => boolean);
  /**
   * The outgoing header for the request id; default: the server's incoming request-id header, or `x-request-id`
   * (always `x-request-id` for outgoingPropagation).
   */
  requestIdHeader?: string;
  /**
   * Also send the chain's ids as W3C `baggage` members `correlationId` and `causationId` (default `false`), for
   * hops that forward baggage and drop other headers. Not added where the request already has a `baggage` header.
   */
  baggage?: boolean;
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
  /** Read W3C `traceparent` into `traceId`/`spanId`, and `tracestate` beside it (default `true`). */
  traceContext?: boolean;
  /**
   * Keep an incoming `x-correlation-id` that passes `validateRequestId` as `correlationId` (default `true`): the
   * id a whole chain of requests and jobs shares. Outgoing propagation and job carriers send it on.
   */
  correlationId?: boolean;
  /**
   * Read W3C `baggage` members `correlationId` and `causationId` by the rules of `validateRequestId` (default
   * `false`): the correlation id where no valid `x-correlation-id` came, and the causation id (the calling
   * request). A header that breaks W3C Baggage's rules or limits is ignored as a whole.
   */
  baggage?: boolean;
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
  readonly correlation: boolean;
  readonly baggage: boolean;
  readonly propagation: OutgoingPolicy | undefined;
}

export interface OutgoingPolicy {
  readonly isAllowed: (origin: string) => boolean;
  readonly requestIdHeader: string;
  readonly baggage: boolean;
}

const defaultHeader = 'x-request-id';

/** RFC 9110 token characters: what a header name may be made of. */
const headerNamePattern = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const isHeaderName = (value: unknown): value is string => typeof value === 'string' && headerNamePattern.test(value);
const headerName = rule('a header name', isHeaderName);

const sharedOptions: OptionShape<RequestContextOptions> = {
  requestIdHeader: rule(
    'a header name or false',
    (value): value is string | false => value === false || isHeaderName(value),
  ),
  validateRequestId: rules.function('(requestId: string) => boolean'),
  generateRequestId: rules.function('() => string'),
  echoRequestId: rule(
    'a boolean or a header name',
    (value): value is boolean | string => typeof value === 'boolean' || isHeaderName(value),
  ),
  traceContext: rules.boolean,
  correlationId: rules.boolean,
  baggage: rules.boolean,
  propagation: rule(
    'an object { allowedOrigins }',
    (value): value is PropagationOptions => typeof value === 'object' && value !== null,
  ),
};

const propagationOptions: OptionShape<PropagationOptions> = {
  allowedOrigins: rule(
    'an array of origins or a function',
    (value): value is PropagationOptions['allowedOrigins'] => Array.isArray(value) || typeof value === 'function',
  ),
  requestIdHeader: headerName,
  baggage: rules.boolean,
};

/**
 * Checks options eagerly, so that a typo fails when the server is built, not on the first request.
 * `adapterOptions` names the adapter's own options, which are allowed here and checked by the adapter.
 */
export function createRequestPolicy(
  options: unknown,
  where: string,
  adapterOptions: readonly string[] = [],
): RequestPolicy {
  loadLazyGlobalsOutsideAnyScope();
  const shape: OptionShape<RequestContextOptions> = { ...sharedOptions };
  for (const key of adapterOptions) (shape as Record<string, OptionRule<unknown>>)[key] = rules.any();
  const given = readOptions<RequestContextOptions>(options, shape, { where, errors });
  const incoming = given.requestIdHeader ?? defaultHeader;
  const echo = given.echoRequestId ?? true;
  const incomingHeader = incoming === false ? undefined : incoming.toLowerCase();
  return {
    incomingHeader,
    validate: given.validateRequestId ?? isValidRequestId,
    generate: safeGenerator(given.generateRequestId ?? uuidv7),
    echoHeader: echo === false ? undefined : echo === true ? (incomingHeader ?? defaultHeader) : echo.toLowerCase(),
    traceContext: given.traceContext ?? true,
    correlation: given.correlationId ?? true,
    baggage: given.baggage ?? false,
    propagation:
      given.propagation === undefined
        ? undefined
        : createOutgoingPolicy(given.propagation, where, incomingHeader ?? defaultHeader, 'propagation'),
  };
}

/**
 * The policy of outgoingPropagation(options), for calls made inside any scope that no server's `propagation`
 * covers (a job's run, a scheduled tick): the same options, checked the same way, eagerly.
 */
export function createProcessOutgoingPolicy(options: unknown, where: string): OutgoingPolicy {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw errors.invalidArgument(where, 'an object with allowedOrigins', options);
  }
  // As createRequestPolicy does: a worker may have no server, and fetch's first use would otherwise load undici
  // inside the first job's run, keeping that run's store on async_hooks.
  loadLazyGlobalsOutsideAnyScope();
  return createOutgoingPolicy(options as PropagationOptions, where, defaultHeader, undefined);
}

function createOutgoingPolicy(
  options: PropagationOptions,
  where: string,
  fallbackHeader: string,
  path: string | undefined,
): OutgoingPolicy {
  const {
    allowedOrigins,
    requestIdHeader = fallbackHeader,
    baggage = false,
  } = readOptions(options, propagationOptions, {
    where,
    errors,
    ...(path === undefined ? {} : { path }),
  });
  if (typeof allowedOrigins === 'function') {
    return { isAllowed: allowedOrigins, requestIdHeader: requestIdHeader.toLowerCase(), baggage };
  }
  const option = path === undefined ? 'allowedOrigins' : `${path}.allowedOrigins`;
  if (allowedOrigins === undefined) {
    throw errors.invalidOption(where, option, propagationOptions.allowedOrigins.expected, allowedOrigins);
  }
  const origins = new Set<string>();
  for (const entry of allowedOrigins as ReadonlyArray<unknown>) {
    origins.add(originOf(entry, where, option));
  }
  return { isAllowed: (origin) => origins.has(origin), requestIdHeader: requestIdHeader.toLowerCase(), baggage };
}

function originOf(entry: unknown, where: string, option: string): string {
  const expected = 'http(s) origins such as "http://127.0.0.1:8080" or URL objects';
  let url: URL;
  try {
    url = entry instanceof URL ? entry : new URL(String(entry));
  } catch (cause) {
    throw errors.invalidOption(where, option, expected, entry, { cause });
  }
  if (
    (typeof entry !== 'string' && !(entry instanceof URL)) ||
    (url.protocol !== 'http:' && url.protocol !== 'https:')
  ) {
    throw errors.invalidOption(where, option, expected, entry);
  }
  return url.origin;
}

/**
 * A user generator runs on every request, where throwing would fail the request: if it returns no usable id
 * (not a string, or empty), the default UUIDv7 is used and a warning is emitted once.
 */
function safeGenerator(generate: () => string): () => string {
  if (generate === uuidv7) return uuidv7;
  return () => {
    const id: unknown = generate();
    if (typeof id === 'string' && id.length > 0) return id;
    warnings.badGeneratedId(typeof id === 'string' ? 'an empty string' : typeof id);
    return uuidv7();
  };
}

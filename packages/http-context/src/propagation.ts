import type { ClientRequest } from 'node:http';
import diagnosticsChannel from 'node:diagnostics_channel';
import http from 'node:http';
import https from 'node:https';
import { syncBuiltinESMExports } from 'node:module';
import { Duplex } from 'node:stream';
import { requestContext, Variable } from '@ambient/core';
import { fetchIsUndici } from '@ambient/core/internal';
import { carrierKeys, contextCarrier } from '@ambient/correlation';
import { baggageMembers } from '@ambient/correlation/internal';
import { warnings } from './errors.js';
import { createProcessOutgoingPolicy, type OutgoingPolicy, type PropagationOptions } from './options.js';

/** The propagation policy of the server whose request is being handled, if it opted in. */
const outgoingPolicy = new Variable<OutgoingPolicy>({ name: '@ambient/http-context outgoing policy' });

export function runWithOutgoingPolicy<R>(policy: OutgoingPolicy, fn: () => R): R {
  installOnce();
  return outgoingPolicy.run(policy, fn);
}

/** outgoingPropagation's policy: for scopes no server's policy covers. */
let processPolicy: OutgoingPolicy | undefined;

/** What outgoingPropagation returns. */
export interface OutgoingPropagation {
  /** Stops propagating from scopes no server's policy covers (if this is still the policy in force). */
  dispose(): void;
}

/**
 * Outgoing propagation for the whole process, wherever a requestContext scope is open and no server's own
 * `propagation` covers it: a job's run (runJob, bullmqTelemetry, consumeHandler), a scheduled tick, or a request
 * of a server that set none, so that request -> job -> HTTP call stays one chain. The same options as a server's
 * `propagation`, checked now (`requestIdHeader` defaults to `x-request-id`); a later call replaces the policy.
 *
 *     outgoingPropagation({ allowedOrigins: ['http://billing.internal:8080'] }); // once, in the worker
 */
export function outgoingPropagation(options: PropagationOptions): OutgoingPropagation {
  const policy = createProcessOutgoingPolicy(options, 'outgoingPropagation(options)');
  installOnce();
  processPolicy = policy;
  return {
    dispose() {
      if (processPolicy === policy) processPolicy = undefined;
    },
  };
}

/**
 * The headers an outgoing request to `origin` should carry from the current request, if any: the same carrier
 * a job gets (contextCarrier), with the request id under the policy's header name.
 */
function headersFor(origin: string): Array<[string, string]> | undefined {
  const policy = outgoingPolicy.get() ?? processPolicy;
  if (policy === undefined || !requestContext.active || !policy.isAllowed(origin)) return undefined;
  const headers: Array<[string, string]> = [];
  const carrier = contextCarrier();
  for (const [name, value] of Object.entries(carrier)) {
    headers.push([name === carrierKeys.requestId ? policy.requestIdHeader : name, value]);
  }
  if (policy.baggage && carrier[carrierKeys.requestId] !== undefined) {
    const members = baggageMembers({
      correlationId: carrier[carrierKeys.correlationId],
      causationId: carrier[carrierKeys.requestId],
    });
    headers.push(['baggage', members]);
  }
  return headers;
}

/** undici's request as its diagnostics channel publishes it (fetch is undici). */
interface UndiciRequest {
  readonly origin: string | URL;
  readonly headers: string[] | string;
  addHeader(name: string, value: string): unknown;
}

function onUndiciRequest(message: unknown): void {
  const request = (message as { request: UndiciRequest }).request;
  const headers = headersFor(String(request.origin).replace(/\/$/, ''));
  if (headers === undefined) return;
  const present = presentUndiciHeaders(request.headers);
  for (const [name, value] of headers) if (!present.has(name)) request.addHeader(name, value);
}

function presentUndiciHeaders(headers: string[] | string): Set<string> {
  const names = new Set<string>();
  if (Array.isArray(headers)) {
    for (let i = 0; i < headers.length; i += 2) names.add(String(headers[i]).toLowerCase());
  } else {
    for (const line of headers.split('\r\n')) names.add(line.slice(0, line.indexOf(':')).toLowerCase());
  }
  return names;
}

/** Adds the headers to a node:http(s) request whose headers are not written yet. */
function addToClientRequest(request: ClientRequest): void {
  if (request.headersSent) return;
  const host = request.getHeader('host');
  if (typeof host !== 'string') return; // setHost: false leaves no origin to check against the allow-list
  const headers = headersFor(`${request.protocol}//${host}`);
  if (headers === undefined) return;
  for (const [name, value] of headers) if (!request.hasHeader(name)) request.setHeader(name, value);
}

function onClientRequestCreated(message: unknown): void {
  addToClientRequest((message as { request: ClientRequest }).request);
}

let installed = false;

/**
 * Subscribes once per process (per copy of this package): fetch/undici through `undici:request:create`;
 * node:http and node:https through `http.client.request.created`, which Node publishes before any header is
 * written. Node 20 has no such channel (its `http.client.request.start` comes after the headers are
 * serialized), so there, and only there, http(s).request and .get are wrapped instead.
 */
function installOnce(): void {
  if (installed) return;
  installed = true;
  diagnosticsChannel.subscribe('undici:request:create', onUndiciRequest);
  diagnosticsChannel.subscribe('http.client.request.created', onClientRequestCreated);
  if (!clientRequestCreatedIsPublished()) wrapClientRequestFactories();
  if (!fetchIsUndici()) warnings.fetchNotPropagated();
}

/**
 * Builds a request on an in-memory socket and destroys it before anything is written. By the ClientRequest
 * constructor, not http.request: an OpenTelemetry http instrumentation wraps http.request, and would record this
 * probe as a failed client span ('GET http://127.0.0.1/', socket hang up) in every process that turns propagation on.
 */
function clientRequestCreatedIsPublished(): boolean {
  let published = false;
  const probe = () => {
    published = true;
  };
  diagnosticsChannel.subscribe('http.client.request.created', probe);
  try {
    const socket = new Duplex({
      read() {},
      write(_chunk, _encoding, callback) {
        callback();
      },
    });
    const request = new http.ClientRequest({ host: '127.0.0.1', createConnection: () => socket });
    request.on('error', () => {});
    request.destroy();
    socket.destroy();
  } finally {
    diagnosticsChannel.unsubscribe('http.client.request.created', probe);
  }
  return published;
}

function wrapClientRequestFactories(): void {
  for (const module of [http, https]) {
    const request = module.request;
    const wrappedRequest = function request_(this: unknown, ...args: Parameters<typeof http.request>): ClientRequest {
      const clientRequest = Reflect.apply(request, this, args) as ClientRequest;
      addToClientRequest(clientRequest);
      return clientRequest;
    } as typeof http.request;
    module.request = wrappedRequest;
    // As Node's own get(): request() then end(), so the headers are added before end() writes them.
    module.get = function get(this: unknown, ...args: Parameters<typeof http.get>): ClientRequest {
      const clientRequest = Reflect.apply(wrappedRequest, this, args);
      clientRequest.end();
      return clientRequest;
    } as typeof http.get;
  }
  syncBuiltinESMExports();
}

import { contextCarrier } from '@ambient/correlation';
import { errors } from './errors.js';

/**
 * The part of a NATS `MsgHdrs` (from `headers()` of `nats` or `@nats-io/transport-node`) that publishing
 * touches. Headers are built by the client's own `headers()`: its `publish` encodes them itself, so a plain
 * object would not do.
 */
export interface MessageHeadersLike extends Iterable<[string, string[]]> {
  set(key: string, value: string): void;
}

/**
 * `headers` with the current scope (contextCarrier()) set on it: `x-request-id`, `x-correlation-id`,
 * `traceparent`, `tracestate`, for `publish`, `request` and JetStream's `publish`. A header already set, in any
 * case, is left as it is. Sets them on `headers` itself and returns it; outside any scope it sets nothing.
 * Give each message its own `headers()`: JetStream's `publish` writes its message id into the one it gets.
 *
 *     nc.publish('orders.created', body, { headers: messageHeaders(headers()) });
 */
export function messageHeaders<H extends MessageHeadersLike>(headers: H): H {
  if (typeof headers?.set !== 'function' || typeof headers[Symbol.iterator] !== 'function') {
    throw errors.invalidArgument('messageHeaders(headers)', "the NATS client's headers() (MsgHdrs)", headers);
  }
  const carrier = contextCarrier();
  // By name in any case, without the clients' Match option, whose values differ between the two lines.
  for (const [key] of headers) delete carrier[key.toLowerCase()];
  for (const key in carrier) headers.set(key, carrier[key]!);
  return headers;
}

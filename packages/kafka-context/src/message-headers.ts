import { contextCarrier } from '@ambient/correlation';
import { textOf } from '@ambient/correlation/internal';
import { errors } from './errors.js';

const where = 'messageHeaders(headers)';

/**
 * A produced record's `headers` carrying the current scope (contextCarrier()): `x-request-id`,
 * `x-correlation-id`, `traceparent`, `tracestate`. A header the caller set wins. Returns a new value; outside any
 * scope, a copy.
 *
 * - An object (kafkajs, @confluentinc/kafka-javascript's KafkaJS API, @platformatic/kafka with string
 *   serializers): a new object, our values as strings.
 *     await producer.send({ topic, messages: [{ value, headers: messageHeaders({ 'x-tenant': 't1' }) }] });
 * - A Map with Buffer keys (@platformatic/kafka's default serializers pass header keys and values through as they
 *   are, so they must be bytes already): a new Map, our keys and values as Buffers.
 *     await producer.send({ messages: [{ topic, value, headers: messageHeaders(new Map()) }] });
 *
 * @opentelemetry/instrumentation-kafkajs, when loaded, writes its own `traceparent` over ours inside
 * `producer.send` (the same key of the same object), so a record never carries two.
 */
export function messageHeaders(headers: Map<Buffer, Buffer>): Map<Buffer, Buffer>;
export function messageHeaders<V = string>(headers?: { readonly [key: string]: V }): { [key: string]: V | string };
export function messageHeaders(headers?: unknown): unknown {
  if (headers instanceof Map) return withCarrierBytes(headers);
  if (headers !== undefined && (typeof headers !== 'object' || headers === null || Array.isArray(headers))) {
    throw errors.invalidArgument(where, 'record headers: an object, or a Map with Buffer keys', headers);
  }
  return { ...contextCarrier(), ...headers };
}

/**
 * `headers` with the carrier added as bytes. A Map compares keys by identity, so the caller's keys are compared by
 * their bytes: two equal keys would go out as two headers of one name, which Kafka allows and readers disagree on.
 */
function withCarrierBytes(headers: Map<unknown, unknown>): Map<unknown, unknown> {
  const given = new Set<string>();
  for (const key of headers.keys()) {
    // A string key means string serializers, which would turn our Buffers into null headers: ask for an object.
    if (!(key instanceof Uint8Array)) {
      throw errors.invalidArgument(where, 'a Map with Buffer keys (with string serializers, an object)', key);
    }
    const name = textOf(key);
    if (name !== undefined) given.add(name);
  }
  const result = new Map<unknown, unknown>();
  for (const [key, value] of Object.entries(contextCarrier())) {
    if (!given.has(key)) result.set(Buffer.from(key), Buffer.from(value));
  }
  for (const [key, value] of headers) result.set(key, value);
  return result;
}

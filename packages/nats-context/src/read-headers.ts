import { carrierKeys, type ContextCarrier } from '@ambient/correlation';

/** What a message brings in its headers: the carrier's fields and JetStream's message id, as sent. */
export interface HeaderFields {
  carrier: ContextCarrier;
  messageId?: string;
}

/** JetStream's de-duplication id header, set by `js.publish(subject, data, { msgID })`. */
const messageIdKey = 'nats-msg-id';
const wanted = new Set<string>([...Object.values(carrierKeys), messageIdKey]);

/**
 * The carrier's headers of a received message, by name in any case: the Go client, and anything built on
 * Go's http.Header, sends `Traceparent` and `X-Request-Id`. A header given twice, or with two values, says
 * two things and is dropped. The values are untrusted: runJob checks every one (readCarrier). A headers object
 * that throws while it is read gives nothing rather than failing the message.
 */
export function readHeaders(headers: Iterable<[string, string[]]> | undefined): HeaderFields {
  const carrier: ContextCarrier = {};
  const fields: HeaderFields = { carrier };
  if (headers === undefined || headers === null) return fields;
  const found = new Map<string, string | undefined>();
  try {
    for (const [key, values] of headers) {
      const name = typeof key === 'string' ? key.toLowerCase() : '';
      if (!wanted.has(name)) continue;
      const one = Array.isArray(values) && values.length === 1 && typeof values[0] === 'string';
      found.set(name, found.has(name) || !one ? undefined : values[0]);
    }
  } catch {
    return fields;
  }
  for (const [name, value] of found) {
    if (value === undefined) continue;
    if (name === messageIdKey) fields.messageId = value;
    else carrier[name] = value;
  }
  return fields;
}

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
  let said: Set<string> | undefined;
  let messageId: string | undefined;
  try {
    for (const [key, values] of headers) {
      const name = typeof key === 'string' ? key.toLowerCase() : '';
      if (!wanted.has(name)) continue;
      // A second header of the same name in another case, or a second value, leaves the name with none.
      const seen = said?.has(name) === true;
      (said ??= new Set()).add(name);
      const one = !seen && Array.isArray(values) && values.length === 1 && typeof values[0] === 'string';
      if (name === messageIdKey) messageId = one ? values[0] : undefined;
      else if (one) carrier[name] = values[0]!;
      else delete carrier[name];
    }
  } catch {
    return { carrier: {} };
  }
  if (messageId !== undefined) fields.messageId = messageId;
  return fields;
}

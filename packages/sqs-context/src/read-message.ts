import type { ContextCarrier } from '@ambient/correlation';
import { carried } from './message-attribute-names.js';

/** The parts of an SQS message read here, each of them untrusted: it came from whoever could send. */
export interface MessageFields {
  carrier: ContextCarrier;
  id?: string;
  attempt?: number;
}

/** ApproximateReceiveCount as SQS writes it: a positive decimal integer. */
const receiveCount = /^[1-9][0-9]{0,8}$/;

/**
 * What a received message (`@aws-sdk/client-sqs`'s `Message`) brings: the carrier, from the `StringValue` of
 * each message attribute of a `String` type (`String` or `String.<custom>`) named by a carrier key; the
 * `MessageId`; the attempt, from `Attributes.ApproximateReceiveCount` (there only when the receive asked for
 * it). Only own properties count. A field of any other type, and a getter that throws, is left out: the run then
 * starts a fresh chain rather than failing the message. The carrier's values are checked later (readCarrier).
 */
export function readMessage(message: object): MessageFields {
  const fields: MessageFields = { carrier: {} };
  const attributes = ownField(message, 'MessageAttributes');
  if (typeof attributes === 'object' && attributes !== null) {
    for (const key of carried) {
      const attribute = ownField(attributes, key);
      if (typeof attribute !== 'object' || attribute === null) continue;
      const type = ownField(attribute, 'DataType');
      const value = ownField(attribute, 'StringValue');
      if (typeof value === 'string' && typeof type === 'string' && /^String(\.|$)/.test(type)) {
        fields.carrier[key] = value;
      }
    }
  }
  const id = ownField(message, 'MessageId');
  if (typeof id === 'string') fields.id = id;
  const count = ownField(ownField(message, 'Attributes'), 'ApproximateReceiveCount');
  if (typeof count === 'string' && receiveCount.test(count)) fields.attempt = Number(count);
  return fields;
}

/** `object[key]` when it is an own property; undefined for anything else, and where reading it throws. */
function ownField(object: unknown, key: string): unknown {
  if (typeof object !== 'object' || object === null) return undefined;
  try {
    return Object.hasOwn(object, key) ? (object as Record<string, unknown>)[key] : undefined;
  } catch {
    return undefined;
  }
}

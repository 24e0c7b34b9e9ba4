import { contextCarrier } from '@ambient/correlation';
import { errors, warnings } from './errors.js';
import { carried } from './message-attribute-names.js';

/** One SQS message attribute, as `@aws-sdk/client-sqs` types it (`MessageAttributeValue`). */
export interface MessageAttributeValueLike {
  DataType: string | undefined;
  StringValue?: string | undefined;
  BinaryValue?: Uint8Array | undefined;
  StringListValues?: string[] | undefined;
  BinaryListValues?: Uint8Array[] | undefined;
}

/** The `MessageAttributes` of a `SendMessage` input or of a `SendMessageBatch` entry. */
export type MessageAttributesLike = Record<string, MessageAttributeValueLike>;

/** SQS refuses a message with more message attributes than this (system attributes do not count). */
const maxMessageAttributes = 10;

/**
 * The lists of ids already warned about. A message that is too full is so on every send from the same place,
 * so a warning per message would flood the log with one line; `once` for the process would hide a second place
 * that loses more (the chain's ids, where the first lost only tracestate). The lists are few: subsets of four keys.
 */
const warned = new Set<string>();

/**
 * `MessageAttributes` for `SendMessageCommand` (and each `SendMessageBatch` entry) carrying the current scope
 * (contextCarrier()): `x-request-id`, `x-correlation-id`, `traceparent`, `tracestate`, as `String` attributes.
 * The attributes given are kept as they are, all of them, and an attribute of the same name wins; the ids take
 * only the room SQS's limit of 10 leaves, in that order, and those that do not fit are named in a warning
 * (WARN_AMBIENT_SQS_ATTRIBUTES_FULL). Returns a new object; outside any scope, a copy.
 *
 *     await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody, MessageAttributes: messageAttributes() }));
 */
export function messageAttributes<A extends MessageAttributesLike = MessageAttributesLike>(
  attributes?: A,
): A & MessageAttributesLike {
  const where = 'messageAttributes(attributes)';
  if (
    attributes !== undefined &&
    (typeof attributes !== 'object' || attributes === null || Array.isArray(attributes))
  ) {
    throw errors.invalidArgument(where, 'SQS message attributes (an object of { DataType, StringValue })', attributes);
  }
  const own = Object.entries(attributes ?? {});
  for (const [name, value] of own) {
    if (typeof value !== 'object' || value === null || typeof value.DataType !== 'string') {
      throw errors.invalidOption(where, name, 'a message attribute { DataType, StringValue | BinaryValue }', value);
    }
  }
  // fromEntries defines each name as an own property: an attribute named `__proto__` stays an attribute.
  const result: MessageAttributesLike = Object.fromEntries(own);
  const carrier = contextCarrier();
  let count = own.length;
  let leftOut: string[] | undefined;
  for (const key of carried) {
    const value = carrier[key];
    if (value === undefined || Object.hasOwn(result, key)) continue;
    if (count < maxMessageAttributes) {
      result[key] = { DataType: 'String', StringValue: value };
      count++;
    } else {
      (leftOut ??= []).push(key);
    }
  }
  if (leftOut !== undefined && !warned.has(leftOut.join())) {
    warned.add(leftOut.join());
    warnings.attributesFull(leftOut, own.length);
  }
  return result as A & MessageAttributesLike;
}

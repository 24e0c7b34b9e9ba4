import { carrierKeys } from '@ambient/correlation';
import { errors } from './errors.js';

/** The carrier's attribute names, in the order they take the room SQS's limit leaves: the chain's ids first. */
export const carried: readonly string[] = Object.values(carrierKeys);

/**
 * `MessageAttributeNames` for `ReceiveMessageCommand`, and sqs-consumer's `messageAttributeNames` option: the
 * names given, and the carrier's (`x-request-id`, `x-correlation-id`, `traceparent`, `tracestate`), each once.
 * SQS returns only the message attributes a receive asks for by name, and sqs-consumer asks for none by
 * default: without these the ids never reach the consumer. Names that already ask for all (`All`, `.*`) are
 * returned as they are. Returns a new array.
 *
 *     Consumer.create({ queueUrl, handleMessage, messageAttributeNames: messageAttributeNames(['tenant']) });
 */
export function messageAttributeNames(names?: readonly string[]): string[] {
  if (names === undefined) return [...carried];
  if (!Array.isArray(names) || !names.every((name) => typeof name === 'string')) {
    throw errors.invalidArgument('messageAttributeNames(names)', 'an array of attribute names (strings)', names);
  }
  if (names.includes('All') || names.includes('.*')) return [...names];
  return [...new Set([...names, ...carried])];
}

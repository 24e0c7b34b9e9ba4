export { messageHeaders, type MessageHeadersLike } from './message-headers.js';
export {
  messageHandler,
  subscriptionCallback,
  type MessageHandlerOptions,
  type NatsMessageLike,
} from './message-handler.js';
export type { NatsContextError, NatsContextErrorCode } from './errors.js';

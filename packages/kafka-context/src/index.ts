export { messageHeaders } from './message-headers.js';
export { eachMessage, type EachMessagePayloadLike } from './each-message.js';
export { messageHandler, type StreamMessageLike } from './message-handler.js';
export type { MessageHandlerOptions } from './record-run.js';
export type { KafkaContextError, KafkaContextErrorCode } from './errors.js';

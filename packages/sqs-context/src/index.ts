export { messageAttributes, type MessageAttributesLike, type MessageAttributeValueLike } from './message-attributes.js';
export { messageAttributeNames } from './message-attribute-names.js';
export { messageHandler, type MessageHandlerOptions, type MessageLike } from './message-handler.js';
export type { SqsContextError, SqsContextErrorCode, SqsContextWarningCode } from './errors.js';

export { publishOptions, type PublishOptionsLike } from './publish-options.js';
export { consumeHandler, type ConsumeHandlerOptions, type ConsumeMessageLike } from './consume-handler.js';
export type { AmqpContextError, AmqpContextErrorCode } from './errors.js';

export { publishOptions, type PublishOptionsWithContext, type UserProperties } from './publish-options.js';
export { messageListener, type MessageListenerOptions, type PublishPacketLike } from './message-listener.js';
export type { MqttContextError, MqttContextErrorCode, MqttContextWarningCode } from './errors.js';

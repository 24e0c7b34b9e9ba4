// mqtt's own type (a type import: mqtt is a peer), not a structural copy: a copy of its all-optional fields would
// refuse `{ qos: 1 }` (TypeScript's weak type check), and one with an index signature would refuse its interface.
import type { IClientPublishOptions } from 'mqtt';
import { contextCarrier } from '@ambient/correlation';
import { errors } from './errors.js';

/** MQTT 5 user properties as mqtt.js takes and gives them: a name sent more than once has an array of values. */
export type UserProperties = Record<string, string | string[]>;

/** The options given, with `properties.userProperties` always there. */
export type PublishOptionsWithContext<O extends IClientPublishOptions> = O & {
  properties: NonNullable<O['properties']> & { userProperties: UserProperties };
};

/**
 * mqtt.js publish options carrying the current scope (contextCarrier()) in MQTT 5 user properties, under the
 * names the W3C Trace Context MQTT binding gives `traceparent` and `tracestate`. The user properties and other
 * properties already in `options` win. Returns a new object, nothing given is changed; outside any scope, a
 * copy with no ids added. On an MQTT 3.1.1 connection mqtt.js sends no properties: the message goes as it is,
 * carrying nothing.
 *
 *     await client.publishAsync('orders/created', body, publishOptions({ qos: 1 }));
 */
export function publishOptions<O extends IClientPublishOptions = Record<never, never>>(
  options?: O,
): PublishOptionsWithContext<O> {
  const where = 'publishOptions(options)';
  if (options !== undefined && !isObject(options)) {
    throw errors.invalidArgument(where, 'mqtt.js publish options (an object)', options);
  }
  const properties = options?.properties;
  if (properties !== undefined && !isObject(properties)) {
    throw errors.invalidOption(where, 'properties', 'an object', properties);
  }
  const userProperties = properties?.userProperties;
  if (userProperties !== undefined && !isObject(userProperties)) {
    throw errors.invalidOption(where, 'properties.userProperties', 'an object', userProperties);
  }
  return {
    ...options,
    properties: { ...properties, userProperties: { ...contextCarrier(), ...userProperties } },
  } as PublishOptionsWithContext<O>;
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

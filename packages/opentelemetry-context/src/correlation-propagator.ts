import {
  createContextKey,
  propagation,
  type Context,
  type TextMapGetter,
  type TextMapPropagator,
  type TextMapSetter,
} from '@opentelemetry/api';
import { requestContext } from '@ambient/core';
import { scopeObject } from '@ambient/core/internal';
import { baggageKeys, isValidRequestId, type BaggageIds } from '@ambient/correlation';
import { errors } from './errors.js';

/**
 * Where correlationPropagator leaves the ids an incoming message's baggage brought, checked: AmbientContextManager
 * opens the message's scope from them when the instrumentation runs its handler in the extracted context. A
 * `Symbol.for` key (createContextKey), the same for every copy of this package.
 */
export const carriedIdsKey = createContextKey('@ambient/opentelemetry-context carried ids');

/**
 * A W3C baggage propagator that also carries the chain's ids, for the transports OpenTelemetry instruments and
 * Ambient does not bind (kafkajs, the AWS SDK's SQS and SNS, gRPC): on inject, the baggage gets the members
 * `correlationId` and `causationId` (this request's id) of the scope open there; on extract, those members are
 * checked by the request-id rule (one that fails travels no further), and AmbientContextManager runs the
 * message's handler in a scope of its own: a fresh `requestId`, the sender as `causationId`, its chain's
 * `correlationId`. It wraps the baggage propagator you use, which parses and writes the header:
 *
 *     textMapPropagator: new CompositePropagator({
 *       propagators: [new W3CTraceContextPropagator(), correlationPropagator(new W3CBaggagePropagator())],
 *     }),
 */
export function correlationPropagator(baggagePropagator: TextMapPropagator): TextMapPropagator {
  if (
    typeof baggagePropagator !== 'object' ||
    baggagePropagator === null ||
    typeof baggagePropagator.inject !== 'function' ||
    typeof baggagePropagator.extract !== 'function' ||
    typeof baggagePropagator.fields !== 'function'
  ) {
    throw errors.invalidArgument(
      'correlationPropagator(baggagePropagator)',
      "OpenTelemetry's W3CBaggagePropagator (a TextMapPropagator)",
      baggagePropagator,
    );
  }
  return {
    inject(context: Context, carrier: unknown, setter: TextMapSetter): void {
      const scope = scopeObject(requestContext);
      const requestId = scope?.requestId;
      if (requestId === undefined) return baggagePropagator.inject(context, carrier, setter);
      const baggage = (propagation.getBaggage(context) ?? propagation.createBaggage())
        .setEntry(baggageKeys.correlationId, { value: scope?.correlationId ?? requestId })
        .setEntry(baggageKeys.causationId, { value: requestId });
      baggagePropagator.inject(propagation.setBaggage(context, baggage), carrier, setter);
    },
    extract(context: Context, carrier: unknown, getter: TextMapGetter): Context {
      const extracted = baggagePropagator.extract(context, carrier, getter);
      const baggage = propagation.getBaggage(extracted);
      if (baggage === undefined) return extracted;
      const ids: { -readonly [K in keyof BaggageIds]: BaggageIds[K] } = {};
      const refused: string[] = [];
      for (const key of [baggageKeys.correlationId, baggageKeys.causationId]) {
        const value = baggage.getEntry(key)?.value;
        if (value === undefined) continue;
        if (isValidRequestId(value)) ids[key] = value;
        else refused.push(key);
      }
      let result =
        refused.length === 0 ? extracted : propagation.setBaggage(extracted, baggage.removeEntries(...refused));
      if (ids.correlationId !== undefined || ids.causationId !== undefined) {
        result = result.setValue(carriedIdsKey, Object.freeze(ids));
      }
      return result;
    },
    fields: () => baggagePropagator.fields(),
  };
}

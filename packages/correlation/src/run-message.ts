import { rules, type OptionShape } from '@ambient/core/internal';
import { readCarrier } from './carrier.js';
import { registeredOpenTelemetry, type OtelSpan } from './opentelemetry-globals.js';
import { RemoteSpan } from './remote-span.js';
import { openRun, type JobRun } from './run-job.js';
import type { TraceParent } from './trace-context.js';

/** The options every broker package's consumer wrapper takes, each documented there for its broker. */
export interface MessageRunOptions {
  name?: string;
  queue?: string;
  link?: boolean;
  generateRequestId?: () => string;
}

/** How a consumer wrapper checks its options, once, when the handler is wrapped. */
export const messageRunOptionShape: OptionShape<MessageRunOptions> = {
  name: rules.nonEmptyString,
  queue: rules.string,
  link: rules.boolean,
  generateRequestId: rules.function('() => string'),
};

/** What a broker's message says about its run: all of it untrusted, checked here or by the run. */
export interface DeliveredMessage {
  /** The subject, topic or routing key: the run's name unless `options.name` is given. */
  name: unknown;
  /** The run's queue unless `options.queue` is given (a stream, a topic). */
  queue?: unknown;
  id?: string | undefined;
  /** A positive integer: the delivery this is. */
  attempt?: number | undefined;
  carrier: unknown;
}

/**
 * The run of one message: `options` (checked with messageRunOptionShape) first, then what the message says. A
 * name or queue that is no printable text of at most 256 characters is not written on every line of the run:
 * the name falls back to `message`.
 */
export function messageRun(system: string, options: MessageRunOptions, message: DeliveredMessage): JobRun {
  const run: JobRun = { name: options.name ?? printable(message.name) ?? 'message', system, carrier: message.carrier };
  const queue = options.queue ?? printable(message.queue);
  if (queue !== undefined) run.queue = queue;
  if (message.id !== undefined) run.id = message.id;
  if (message.attempt !== undefined) run.attempt = message.attempt;
  if (options.link !== undefined) run.link = options.link;
  if (options.generateRequestId !== undefined) run.generateRequestId = options.generateRequestId;
  return run;
}

// Control characters (C0, DEL, C1) would break a text log line; anything else a topic may hold is kept.
// eslint-disable-next-line no-control-regex
const unprintable = /[\u0000-\u001f\u007f-\u009f]/;

/** `value` where it is text a log line can show as a name: non-empty, at most 256 characters, no control character. */
export function printable(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' && value.length <= 256 && !unprintable.test(value)
    ? value
    : undefined;
}

/**
 * runJob for a message handed over by a broker client, its run made by messageRun from options checked when the
 * handler was wrapped. With OpenTelemetry registered, a run that continues the message's trace has a span of it
 * active: the consumer span an instrumentation made active around the callback (@opentelemetry/instrumentation-
 * amqplib, -kafkajs), which the run, opened from the root, would otherwise drop; else the publisher's span as a
 * remote parent, as propagation.extract gives it, so that the handler's spans join the trace its log lines name
 * (NATS and MQTT have no instrumentation at all).
 */
export function runMessage<R>(run: JobRun, fn: () => R): R {
  const carried = readCarrier(run.carrier);
  const parent = run.link === true ? undefined : carried.traceParent;
  const enterSpan = parent === undefined ? undefined : spanToEnter(parent);
  run.carrier = carried;
  return openRun(run, enterSpan === undefined ? fn : () => enterSpan(fn));
}

/** Runs `fn` with a span active. */
type EnterSpan = <R>(fn: () => R) => R;

function spanToEnter(parent: TraceParent): EnterSpan | undefined {
  const otel = registeredOpenTelemetry();
  if (otel === undefined) return undefined;
  const active = otel.spanOf(otel.active());
  const span = isConsumerSpanOf(active, parent)
    ? active
    : new RemoteSpan({
        traceId: parent.traceId,
        spanId: parent.parentId,
        traceFlags: Number.parseInt(parent.traceFlags, 16),
        isRemote: true,
      });
  // Inside the run the active context is the root's (AmbientContextManager) or still the caller's (a manager of
  // its own): either way, with this span on it.
  return (fn) => otel.with(otel.withSpan(otel.active(), span), fn);
}

/**
 * Whether `span` is an instrumentation's consumer span of this message: a child of the span its traceparent
 * names. Any other span active here is whatever was active where the connection was opened, or the run that
 * released this message (a handler holding mqtt.js's handleMessage), and must not leak into this run. Context
 * values are opaque: whatever sits under the span key is checked before it is trusted as a span. The SDK names
 * the parent in `parentSpanContext` (2.x) or `parentSpanId` (1.x).
 */
function isConsumerSpanOf(span: unknown, parent: TraceParent): span is OtelSpan {
  if (typeof (span as OtelSpan | undefined)?.spanContext !== 'function') return false;
  const { parentSpanContext, parentSpanId } = span as {
    parentSpanContext?: { spanId?: unknown };
    parentSpanId?: unknown;
  };
  const parentId = parentSpanContext?.spanId ?? parentSpanId;
  return (span as OtelSpan).spanContext().traceId === parent.traceId && parentId === parent.parentId;
}

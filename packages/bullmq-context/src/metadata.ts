import {
  carrierKeys,
  contextCarrier,
  formatTraceParent,
  readCarrier,
  type CarrierFields,
  type ContextCarrier,
} from '@ambient/correlation';

/*
 * What a job carries in `opts.telemetry.metadata`, the string BullMQ stores with the job's options and copies
 * into flows and job schedulers: the JSON of Ambient's carrier (contextCarrier()). bullmq-otel writes the JSON
 * of OpenTelemetry's W3C carrier there, whose `traceparent` reads the same way.
 */

/** Longer metadata is not ours (nor anybody's carrier): it is not parsed. */
const maxMetadataLength = 4096;

/** What a consumer knows from a job's metadata, every field checked. */
export interface InboundJob {
  readonly fields: CarrierFields;
}

/** A job with no metadata of ours: a fresh chain. */
export const noMetadata: InboundJob = Object.freeze({ fields: Object.freeze({}) });

/** Reads metadata that may come from anywhere (another library, an older version, by hand): never throws. */
export function readMetadata(metadata: unknown): InboundJob {
  if (typeof metadata !== 'string' || metadata.length === 0 || metadata.length > maxMetadataLength) return noMetadata;
  let parsed: unknown;
  try {
    parsed = JSON.parse(metadata);
  } catch {
    return noMetadata;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return noMetadata;
  return { fields: readCarrier(parsed) };
}

/** The metadata for a job added now: the current scope's carrier, with `traceparent` naming `span` if given. */
export function metadataForNewJob(span: { traceId: string; spanId: string; traceFlags: number } | undefined): string {
  const carrier: ContextCarrier = contextCarrier();
  if (span !== undefined) {
    carrier[carrierKeys.traceParent] = formatTraceParent(span.traceId, span.spanId, flagsOf(span.traceFlags));
  }
  return serialize(carrier);
}

/**
 * The metadata BullMQ asks for when the job running now fails (it passes it to the retry as `tm`): the same
 * producer as this run's, never this run, so that every attempt has the same causation and correlation.
 * (BullMQ 6.7 stores it in a field it does not read back: a retry runs from the job's first metadata.)
 */
export function metadataForRetry(inbound: InboundJob): string {
  return serialize(carrierOf(inbound.fields));
}

/** Checked fields back as a carrier (for runJob, or the next attempt): nothing unchecked is passed on. */
export function carrierOf(fields: CarrierFields): ContextCarrier {
  const carrier: ContextCarrier = {};
  if (fields.causationId !== undefined) carrier[carrierKeys.requestId] = fields.causationId;
  if (fields.correlationId !== undefined) carrier[carrierKeys.correlationId] = fields.correlationId;
  if (fields.traceParent !== undefined) {
    const { traceId, parentId, traceFlags } = fields.traceParent;
    carrier[carrierKeys.traceParent] = formatTraceParent(traceId, parentId, traceFlags);
    if (fields.traceState !== undefined) carrier[carrierKeys.traceState] = fields.traceState;
  }
  return carrier;
}

/** BullMQ stores no metadata for an empty string. */
function serialize(carrier: ContextCarrier): string {
  return Object.keys(carrier).length === 0 ? '' : JSON.stringify(carrier);
}

function flagsOf(traceFlags: number): string {
  return (traceFlags & 0xff).toString(16).padStart(2, '0');
}

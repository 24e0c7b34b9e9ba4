/**
 * W3C Trace Context `traceparent` (https://www.w3.org/TR/trace-context/#traceparent-header), parsed by the
 * specification's rules: lowercase hex only, version "ff" invalid, all-zero trace-id or parent-id invalid,
 * exactly 55 characters for version 00, and for a later version at least 55 with a "-" after the fourth field
 * (the fields after it are ignored). Two traceparent headers reach Node joined by ", " and fail on length.
 */
export interface TraceParent {
  readonly traceId: string;
  readonly parentId: string;
  readonly traceFlags: string;
}

const versionLength = 2;
const traceIdLength = 32;
const parentIdLength = 16;
const flagsLength = 2;
const version00Length = versionLength + 1 + traceIdLength + 1 + parentIdLength + 1 + flagsLength; // 55

export function parseTraceParent(value: string | undefined): TraceParent | undefined {
  if (value === undefined || value.length < version00Length) return undefined;
  const version = value.slice(0, versionLength);
  if (!isLowerHex(version) || version === 'ff') return undefined;
  if (
    version === '00'
      ? value.length !== version00Length
      : value.length > version00Length && value[version00Length] !== '-'
  ) {
    return undefined;
  }
  if (value[2] !== '-' || value[35] !== '-' || value[52] !== '-') return undefined;
  const traceId = value.slice(3, 35);
  const parentId = value.slice(36, 52);
  const traceFlags = value.slice(53, 55);
  if (!isLowerHex(traceId) || isAllZeros(traceId)) return undefined;
  if (!isLowerHex(parentId) || isAllZeros(parentId)) return undefined;
  if (!isLowerHex(traceFlags)) return undefined;
  return { traceId, parentId, traceFlags };
}

/** A version-00 traceparent naming `spanId` as the parent of the next hop. */
export function formatTraceParent(traceId: string, spanId: string, traceFlags = '00'): string {
  return `00-${traceId}-${spanId}-${traceFlags}`;
}

function isLowerHex(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (!((code >= 0x30 && code <= 0x39) || (code >= 0x61 && code <= 0x66))) return false;
  }
  return true;
}

function isAllZeros(value: string): boolean {
  for (let i = 0; i < value.length; i++) if (value[i] !== '0') return false;
  return true;
}

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
  if (!isLowerHex(value, 0, versionLength) || (value[0] === 'f' && value[1] === 'f')) return undefined;
  const isVersion00 = value[0] === '0' && value[1] === '0';
  if (
    isVersion00 ? value.length !== version00Length : value.length > version00Length && value[version00Length] !== '-'
  ) {
    return undefined;
  }
  if (value[2] !== '-' || value[35] !== '-' || value[52] !== '-') return undefined;
  if (!isLowerHex(value, 3, 35) || isAllZeros(value, 3, 35)) return undefined;
  if (!isLowerHex(value, 36, 52) || isAllZeros(value, 36, 52)) return undefined;
  if (!isLowerHex(value, 53, 55)) return undefined;
  return { traceId: value.slice(3, 35), parentId: value.slice(36, 52), traceFlags: value.slice(53, 55) };
}

/** A version-00 traceparent naming `spanId` as the parent of the next hop. */
export function formatTraceParent(traceId: string, spanId: string, traceFlags = '00'): string {
  return `00-${traceId}-${spanId}-${traceFlags}`;
}

/** Whether `value` from `start` to `end` (exclusive) is lowercase hex. */
function isLowerHex(value: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const code = value.charCodeAt(i);
    if (!((code >= 0x30 && code <= 0x39) || (code >= 0x61 && code <= 0x66))) return false;
  }
  return true;
}

function isAllZeros(value: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (value.charCodeAt(i) !== 0x30) return false;
  return true;
}

/** What this library keeps of a `tracestate`: the 512 characters W3C asks every vendor to pass on. */
export const maxTraceStateLength = 512;
const maxTraceStateMembers = 32;
const traceStateKey = /^(?:[a-z][a-z0-9_\-*/]{0,255}|[a-z0-9][a-z0-9_\-*/]{0,240}@[a-z][a-z0-9_\-*/]{0,13})$/;
const traceStateValue = /^[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;

/**
 * W3C Trace Context `tracestate` (https://www.w3.org/TR/trace-context/#tracestate-header): at most 32
 * comma-separated `key=value` members with the specification's key and value characters, no key twice, and
 * here at most 512 characters in all. Anything else is dropped whole, as the specification allows, rather than
 * repaired: it is passed on to the next hop and logged nowhere.
 */
export function isValidTraceState(value: string): boolean {
  if (value.length === 0 || value.length > maxTraceStateLength) return false;
  const members = value.split(',');
  if (members.length > maxTraceStateMembers) return false;
  const keys = new Set<string>();
  for (const member of members) {
    const trimmed = member.trim();
    if (trimmed === '') continue;
    const equals = trimmed.indexOf('=');
    if (equals <= 0) return false;
    const key = trimmed.slice(0, equals);
    if (!traceStateKey.test(key) || !traceStateValue.test(trimmed.slice(equals + 1)) || keys.has(key)) return false;
    keys.add(key);
  }
  return keys.size > 0;
}

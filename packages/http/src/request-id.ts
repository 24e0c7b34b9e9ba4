import { randomFillSync } from 'node:crypto';

export const maxRequestIdLength = 128;

/**
 * The default rule for an incoming request id: 1 to 128 characters of printable ASCII, with no spaces,
 * quotes, CR/LF or other control characters, so it can go into a response header and a log line as it is.
 * A header sent twice reaches Node joined by ", " and fails on the space.
 */
export function isValidRequestId(value: string): boolean {
  const length = value.length;
  if (length === 0 || length > maxRequestIdLength) return false;
  for (let i = 0; i < length; i++) {
    const code = value.charCodeAt(i);
    // 0x21 '!' to 0x7e '~', less 0x22 '"' and 0x27 "'".
    if (code < 0x21 || code > 0x7e || code === 0x22 || code === 0x27) return false;
  }
  return true;
}

// Random bytes drawn in batches: one randomFillSync per 256 ids instead of one per id.
const idsPerBatch = 256;
const random = Buffer.alloc(10 * idsPerBatch);
let randomOffset = random.length;
const hex: string[] = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/**
 * A time-ordered UUID, version 7 (RFC 9562): 48 bits of Unix milliseconds, then 74 random bits. Ids sort by
 * creation time, so log lines and database rows keyed by them stay in order.
 */
export function uuidv7(): string {
  if (randomOffset === random.length) {
    randomFillSync(random);
    randomOffset = 0;
  }
  const r = randomOffset;
  randomOffset += 10;
  const ms = Date.now();
  const high = Math.floor(ms / 0x1_0000_0000);
  const low = ms >>> 0;
  return (
    hex[(high >>> 8) & 0xff]! + hex[high & 0xff]! + hex[low >>> 24]! + hex[(low >>> 16) & 0xff]! + '-' +
    hex[(low >>> 8) & 0xff]! + hex[low & 0xff]! + '-' +
    hex[0x70 | (random[r]! & 0x0f)]! + hex[random[r + 1]!]! + '-' +
    hex[0x80 | (random[r + 2]! & 0x3f)]! + hex[random[r + 3]!]! + '-' +
    hex[random[r + 4]!]! + hex[random[r + 5]!]! + hex[random[r + 6]!]! + hex[random[r + 7]!]! + hex[random[r + 8]!]! + hex[random[r + 9]!]!
  );
}

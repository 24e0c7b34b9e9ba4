import { randomFillSync } from 'node:crypto';

export const maxRequestIdLength = 128;

/**
 * The characters the default rule admits: `A-Z a-z 0-9 - _ . : = + / @`. Enough for UUIDs, ULIDs, KSUIDs,
 * base64 and base64url ids, `req-42` and cf-ray style ids; nothing that means something in the places an id
 * ends up: HTML log viewers (`<>&"'`), logfmt and CSV (space, `,` `;` `"`), SQL comments, shell commands
 * (`|` `` ` `` `$` `\`), URLs (`%` `?` `#`). A header sent twice reaches Node joined by ", " and fails on both.
 * A table indexed by char code rather than a regular expression: it runs on every request that brings an id.
 */
const idCharacter = new Uint8Array(0x80);
for (const character of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.:=+/@') {
  idCharacter[character.charCodeAt(0)] = 1;
}

/**
 * The default rule for an incoming request id (and correlation id): 1 to 128 characters of
 * `A-Z a-z 0-9 - _ . : = + / @`. Anything else is replaced by a generated id and never echoed, logged or
 * stored. Pass your own `validateRequestId` to widen it; see the README for why the default is strict.
 */
export function isValidRequestId(value: string): boolean {
  const length = value.length;
  if (length === 0 || length > maxRequestIdLength) return false;
  for (let i = 0; i < length; i++) {
    const code = value.charCodeAt(i);
    if (code >= 0x80 || idCharacter[code] === 0) return false;
  }
  return true;
}

// Random bytes drawn in batches: one randomFillSync per 256 ids instead of one per id.
const idsPerBatch = 256;
const random = Buffer.alloc(10 * idsPerBatch);
let randomOffset = random.length;
const hexDigits = Buffer.from('0123456789abcdef', 'latin1');
// The id is written as ASCII into this buffer and read out once: a flat one-byte string, where concatenating
// 20 pieces made 20 cons strings per id that setHeader's validation and JSON then had to flatten.
const text = Buffer.from('00000000-0000-7000-8000-000000000000', 'latin1');

function writeHex(at: number, byte: number): void {
  text[at] = hexDigits[byte >>> 4]!;
  text[at + 1] = hexDigits[byte & 0x0f]!;
}

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
  writeHex(0, (high >>> 8) & 0xff);
  writeHex(2, high & 0xff);
  writeHex(4, low >>> 24);
  writeHex(6, (low >>> 16) & 0xff);
  writeHex(9, (low >>> 8) & 0xff);
  writeHex(11, low & 0xff);
  writeHex(14, 0x70 | (random[r]! & 0x0f));
  writeHex(16, random[r + 1]!);
  writeHex(19, 0x80 | (random[r + 2]! & 0x3f));
  writeHex(21, random[r + 3]!);
  for (let i = 0; i < 6; i++) writeHex(24 + 2 * i, random[r + 4 + i]!);
  return text.toString('latin1', 0, 36);
}

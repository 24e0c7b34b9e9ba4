// W3C Baggage (https://www.w3.org/TR/baggage/) as a second way for the chain's ids to travel: through hops that
// forward `baggage` and drop headers they do not know (proxies, OpenTelemetry's propagators on transports
// Ambient does not bind). Only two members are Ambient's; the rest of a header is left alone.
import { safely } from './carrier.js';
import { isValidRequestId } from './request-id.js';

/** The baggage members Ambient writes and reads: the chain's id, and the id of the request that made the call. */
export const baggageKeys = { correlationId: 'correlationId', causationId: 'causationId' } as const;

/** W3C Baggage's limits on a whole header, which a receiver may refuse beyond. */
const maxBytes = 8192;
const maxMembers = 64;

/** RFC 9110 token characters, which a baggage key is made of. */
const tokenPattern = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** baggage-octet (W3C Baggage), after percent-decoding is undone: no controls, space, `"`, `,`, `;`, `\`. */
const valuePattern = /^(?:[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]|%[0-9A-Fa-f]{2})*$/;

/** What a baggage header brings Ambient, each id checked; a header that breaks a rule brings nothing. */
export interface BaggageIds {
  readonly correlationId?: string;
  readonly causationId?: string;
}

/**
 * Reads Ambient's members from an incoming `baggage` header, by the rules a request id gets (`validateId`,
 * default isValidRequestId). A header beyond W3C's limits (8,192 bytes, 64 members), a member that is not
 * `key=value[;properties]`, or a value that is not valid percent-encoded text makes the whole header count as
 * absent: it came from somewhere that does not follow the rules. Never throws.
 */
export function readBaggage(header: unknown, validateId: (id: string) => boolean = isValidRequestId): BaggageIds {
  if (typeof header !== 'string' || header.length === 0 || Buffer.byteLength(header) > maxBytes) return {};
  const members = header.split(',');
  if (members.length > maxMembers) return {};
  const found: { correlationId?: string; causationId?: string } = {};
  for (const member of members) {
    const pair = member.split(';', 1)[0]!;
    const equals = pair.indexOf('=');
    if (equals === -1) return {};
    const key = pair.slice(0, equals).trim();
    const raw = pair.slice(equals + 1).trim();
    if (!tokenPattern.test(key) || !valuePattern.test(raw)) return {};
    if (key !== baggageKeys.correlationId && key !== baggageKeys.causationId) continue;
    let value: string;
    try {
      value = decodeURIComponent(raw);
    } catch {
      return {};
    }
    if (key in found) return {}; // the same member twice names no single id
    found[key] = value;
  }
  const ids: { correlationId?: string; causationId?: string } = {};
  for (const key of [baggageKeys.correlationId, baggageKeys.causationId]) {
    const value = found[key];
    if (value !== undefined && safely(validateId, value)) ids[key] = value;
  }
  return ids;
}

/** Ambient's members for an outgoing `baggage` header. The ids are request ids, already baggage-safe text. */
export function baggageMembers(ids: BaggageIds): string {
  const members: string[] = [];
  if (ids.correlationId !== undefined)
    members.push(`${baggageKeys.correlationId}=${encodeURIComponent(ids.correlationId)}`);
  if (ids.causationId !== undefined) members.push(`${baggageKeys.causationId}=${encodeURIComponent(ids.causationId)}`);
  return members.join(',');
}

/**
 * How every Ambient error message names a value it received: its kind, and strings quoted and cut at 40
 * characters (an untrusted value never reaches a message whole).
 */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string')
    return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- objects and functions returned above
  return `${typeof value} ${String(value)}`;
}

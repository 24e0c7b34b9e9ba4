import { isValidRequestId, maxRequestIdLength, uuidv7 } from '@ambient/correlation';

describe('isValidRequestId', () => {
  it.each([
    'a',
    'abc-123',
    'req-42',
    'a'.repeat(maxRequestIdLength),
    'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789',
    '-_.:=+/@',
    '0190b6b4-5c1e-7c3a-9f7e-2b1d3c4e5f60', // UUID
    '01ARZ3NDEKTSV4RRFFQ69G5FAV', // ULID
    '0ujtsYcgvSTl8PAuAdqWYSMnLOv', // KSUID
    'dGhpcyBpcyBiYXNlNjQ=', // base64
    'dGhpcyBpcyBiYXNlNjQ_-w', // base64url
    '8a4b2c1d3e5f6a7b-AMS', // cf-ray style
    'user@host:1234',
  ])('accepts %j', (value) => expect(isValidRequestId(value)).toBe(true));

  it.each([
    '<',
    '>',
    ';',
    ',',
    '|',
    '`',
    '\\',
    '%',
    '!',
    '#',
    '$',
    '&',
    '(',
    ')',
    '*',
    '?',
    '[',
    ']',
    '^',
    '{',
    '}',
    '~',
  ])('rejects an id containing %j', (character) => {
    expect(isValidRequestId(`req${character}1`)).toBe(false);
    expect(isValidRequestId(character)).toBe(false);
  });

  it.each([
    ['empty', ''],
    ['129 characters', 'a'.repeat(maxRequestIdLength + 1)],
    ['a space', 'a b'],
    ['a double quote', 'a"b'],
    ['a single quote', "a'b"],
    ['CR', 'a\rb'],
    ['LF', 'a\nb'],
    ['a tab', 'a\tb'],
    ['NUL', 'a\u0000b'],
    ['DEL', 'a\u007fb'],
    ['non-ASCII', 'r\u00e9q'],
    ['an emoji', 'req-\u{1f600}'],
    ['a header sent twice (joined by Node)', 'first, second'],
    ['markup', 'semi;colon<script>'],
  ])('rejects %s', (_what, value) => expect(isValidRequestId(value)).toBe(false));
});

describe('uuidv7', () => {
  it('is an RFC 9562 version 7, variant 10 UUID whose first 48 bits are the current Unix milliseconds', () => {
    const before = Date.now();
    const id = uuidv7();
    const after = Date.now();
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const ms = parseInt(id.replace(/-/g, '').slice(0, 12), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(after);
    expect(isValidRequestId(id)).toBe(true);
  });

  it('is unique over 200,000 ids and sorts by creation time across milliseconds', async () => {
    const ids = Array.from({ length: 200_000 }, () => uuidv7());
    expect(new Set(ids).size).toBe(ids.length);
    const earlier = uuidv7();
    await new Promise((resolve) => setTimeout(resolve, 3));
    expect(uuidv7() > earlier).toBe(true);
  });
});

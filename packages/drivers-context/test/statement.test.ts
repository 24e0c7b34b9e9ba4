import { redactStatement } from '@ambient/drivers-context';

describe('redactStatement(text): every literal becomes ?, placeholders and identifiers stay', () => {
  it.each([
    ["SELECT * FROM users WHERE name = 'bob'", 'SELECT * FROM users WHERE name = ?'],
    // Quotes inside strings, escaped by doubling (SQL) and by backslash (MySQL), end nothing early.
    ["SELECT 'it''s', 'c' FROM t", 'SELECT ?, ? FROM t'],
    // A backslash escapes in MySQL strings and not in PostgreSQL's: unreadable for certain, hidden from the quote.
    ["SELECT 'it''s', 'a\\'b', 'c' FROM t", 'SELECT ?…'],
    ["SELECT 'x\\\\' AS a, 'y' AS b", 'SELECT ?…'],
    ['SELECT "secret" AS x', 'SELECT ? AS x'],
    ['SELECT "a""b" AS x', 'SELECT ? AS x'],
    // PostgreSQL's numbered placeholders stay.
    ['SELECT $1::text, $2, $10 FROM t WHERE id = $3', 'SELECT $1::text, $2, $10 FROM t WHERE id = $3'],
    ['SELECT ? AS a WHERE b = ?', 'SELECT ? AS a WHERE b = ?'],
    // Dollar-quoted text, plain and tagged, with quotes and dollars inside.
    ["DO $$BEGIN RAISE NOTICE 'secret'; END$$", 'DO ?'],
    ["SELECT $tag$it's $1 secret$tag$ AS t", 'SELECT ? AS t'],
    ['SELECT $a$x$b$y$a$, $b$z$b$', 'SELECT ?, ?'],
    // Hex literals, both spellings.
    ["SELECT X'DEADBEEF', x'00', 0xCAFE, 0XBEEF", 'SELECT ?, ?, ?, ?'],
    // Numbers, decimals and exponents go; digits inside identifiers and qualified names stay.
    [
      'SELECT 42, 4.2, 4e2, 4.5E-3, -7 FROM t1 JOIN t2 ON t1.c3 = t2.c3',
      'SELECT ?, ?, ?, ?, -? FROM t1 JOIN t2 ON t1.c3 = t2.c3',
    ],
    ['SELECT col_2, a1b2 FROM s1.table9 LIMIT 10 OFFSET 20', 'SELECT col_2, a1b2 FROM s1.table9 LIMIT ? OFFSET ?'],
    ['SELECT `col1`, `t2`.`x3` FROM `db4`.`t5`', 'SELECT `col1`, `t2`.`x3` FROM `db4`.`t5`'],
    // mysql2's `mysql2:query` carries the values written in: they go too.
    ["INSERT INTO t (a, b, c) VALUES ('secret-42', 7919, NULL)", 'INSERT INTO t (a, b, c) VALUES (?, ?, NULL)'],
    // Whitespace is folded; keywords and comments' words stay.
    ['SELECT\n  a,\n\tb\nFROM   t  ', 'SELECT a, b FROM t'],
    ['', ''],
  ])('%j -> %j', (text, expected) => {
    expect(redactStatement(text)).toBe(expected);
  });

  it('cuts a long statement at 1024 characters, marked with …', () => {
    const long = `SELECT ${'a, '.repeat(2000)}b FROM t`;
    const redacted = redactStatement(long);
    expect(redacted).toHaveLength(1025);
    expect(redacted.endsWith('…')).toBe(true);
    expect(redacted.startsWith('SELECT a, a,')).toBe(true);
  });

  it('reads no more than 4096 characters of a huge statement', () => {
    const huge = `SELECT ${'a, '.repeat(50_000)}'secret-42'`;
    const redacted = redactStatement(huge);
    expect(redacted).toHaveLength(1025);
    expect(redacted).not.toContain('secret');
  });
});

/* Cases where the text cannot be read for certain: everything from the first quote on is hidden. */
describe('redactStatement(text): literals that are hard to see', () => {
  it('a literal cut at the 4096-character read limit (a bulk INSERT, a long JSON value)', () => {
    // mysql2:query carries the values written into the SQL: a long one is cut open, and its text logged.
    const text = `INSERT INTO docs (body) VALUES ('${'secret '.repeat(1000)}')`;
    expect(redactStatement(text)).not.toContain('secret');
  });

  it('a PostgreSQL literal ending in a backslash (standard_conforming_strings is on by default)', () => {
    // PostgreSQL reads 'C:\' as the two characters C:\ (a backslash escapes nothing outside E'...').
    expect(redactStatement(String.raw`SELECT 'C:\', 'hunter-two' AS password`)).not.toContain('hunter');
  });

  it('an apostrophe inside a -- comment', () => {
    expect(redactStatement("SELECT a -- don't log this\nFROM t WHERE p = 'hunter-two'")).not.toContain('hunter');
  });

  it('an apostrophe inside a /* comment */', () => {
    expect(redactStatement("SELECT a /* it's */ FROM t WHERE p = 'hunter-two'")).not.toContain('hunter');
  });

  it('a decimal written without its leading zero', () => {
    expect(redactStatement('SELECT * FROM t WHERE price = .7919')).not.toContain('7919');
  });
});

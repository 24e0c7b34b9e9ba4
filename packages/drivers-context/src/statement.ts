/**
 * A statement as a log line may show it: every literal replaced by `?`, so no parameter value reaches a log
 * (mysql2's `mysql2:query` carries the SQL with the values already written in). Placeholders (`?`, `$1`),
 * identifiers and keywords stay; comments go. Where the text cannot be read for certain (a backslash, whose
 * meaning differs between MySQL and PostgreSQL strings; a literal left open, as by the read limit), everything
 * from the first quote on is hidden: a log line loses detail rather than leak a value. Cut at 1024 characters.
 */
const maxStatementLength = 1024;
const maxReadLength = 4096;

const comments = /--[^\n]*|\/\*[\s\S]*?\*\//g;

const literals = new RegExp(
  [
    String.raw`'(?:[^']|'')*'`, // 'text', with '' inside (no backslash gets here)
    String.raw`"(?:[^"]|"")*"`, // "text": a string in MySQL; in PostgreSQL an identifier, hidden all the same
    String.raw`\$([A-Za-z_][A-Za-z0-9_]*)?\$[\s\S]*?\$\1\$`, // PostgreSQL $$dollar-quoted$$ text
    String.raw`\b[xXbB]'[0-9a-fA-F]*'`, // X'0f', B'01'
    String.raw`\b0[xXbB][0-9a-fA-F]+\b`, // 0x0f, 0b01
    String.raw`(?<![\w$.])(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\b`, // 42, 4.2, .42, 4e2; not $1 nor t1
  ].join('|'),
  'g',
);

export function redactStatement(text: string): string {
  const read = text.length > maxReadLength ? text.slice(0, maxReadLength) : text;
  const bare = read.replace(comments, ' ');
  const redacted = bare.includes('\\') ? hideFromFirstQuote(bare) : hideFromFirstQuote(bare.replace(literals, '?'));
  const line = redacted.replace(/\s+/g, ' ').trim();
  return line.length > maxStatementLength ? `${line.slice(0, maxStatementLength)}…` : line;
}

/** Whatever follows a quote still in the text (an open or unreadable literal) is hidden. */
function hideFromFirstQuote(text: string): string {
  // Backquoted identifiers and $1 placeholders are fine: only a quote that opens a value ends the text.
  const open = text.search(/['"]|\$(?!\d)/);
  return open === -1 ? text : `${text.slice(0, open)}?…`;
}

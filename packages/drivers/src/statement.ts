/**
 * A statement as a log line may show it: every literal replaced by `?`, so no parameter value reaches a log
 * (mysql2's `mysql2:query` carries the SQL with the values already written in). Placeholders (`?`, `$1`),
 * identifiers and keywords stay. Cut at 1024 characters.
 */
const maxStatementLength = 1024;

const literals = new RegExp(
  [
    String.raw`'(?:[^'\\]|\\.|'')*'`, // 'text', with '' and \' inside
    String.raw`"(?:[^"\\]|\\.|"")*"`, // "text": a string in MySQL; in PostgreSQL an identifier, hidden all the same
    String.raw`\$([A-Za-z_][A-Za-z0-9_]*)?\$[\s\S]*?\$\1\$`, // PostgreSQL $$dollar-quoted$$ text
    String.raw`\b[xX]'[0-9a-fA-F]*'`, // X'0f'
    String.raw`\b0[xX][0-9a-fA-F]+\b`, // 0x0f
    String.raw`(?<![\w$.])\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\b`, // 42, 4.2, 4e2; not $1 nor t1
  ].join('|'),
  'g',
);

export function redactStatement(text: string): string {
  const cut = text.length > maxStatementLength * 4 ? text.slice(0, maxStatementLength * 4) : text;
  const redacted = cut.replace(literals, '?').replace(/\s+/g, ' ').trim();
  return redacted.length > maxStatementLength ? `${redacted.slice(0, maxStatementLength)}…` : redacted;
}

/**
 * Rewrites `?` placeholders as PostgreSQL's `$1, $2, …`, leaving question marks inside string literals,
 * quoted identifiers and comments alone, so one SQL text serves both databases.
 */
export function numberedPlaceholders(sql: string): string {
  let out = '';
  let n = 0;
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    if (c === "'" || c === '"') {
      const end = closingQuote(sql, i, c);
      out += sql.slice(i, end);
      i = end;
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      const stop = end === -1 ? sql.length : end;
      out += sql.slice(i, stop);
      i = stop;
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      const stop = end === -1 ? sql.length : end + 2;
      out += sql.slice(i, stop);
      i = stop;
    } else if (c === '?') {
      out += `$${++n}`;
      i++;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** The index just past the literal opened at `start` (a doubled quote is an escaped one). */
function closingQuote(sql: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < sql.length) {
    if (sql[i] === quote) {
      if (sql[i + 1] === quote) i += 2;
      else return i + 1;
    } else i++;
  }
  return sql.length;
}

/** `?, ?, …`, one placeholder per value, for `IN (…)`. */
export function inList(values: readonly unknown[]): string {
  return values.map(() => '?').join(', ');
}

/**
 * A statement's text for each count of values in its `IN (…)` (`make` gets the placeholders), made once per
 * count: statements read on every request keep one string each, as a literal would.
 */
export function perCount(make: (list: string) => string): (count: number) => string {
  const texts: string[] = [];
  return (count) => (texts[count] ??= make(inList(Array.from({ length: count }))));
}

/**
 * A script's speaker labels and its word count, read the same way by the service (which aligns the words)
 * and by the studio (which counts them before sending): the count the dialog shows is the count the result
 * reports. Pure, no Node or DOM.
 */

const LABEL = /^\s*([\p{L}][\p{L}\p{N} .'’-]{0,39}?)\s*:(?:\s+|$)/u;

/**
 * The label of a line and the text after it, or null when the line has none. A label is `NAME:` at the start
 * of a line, NAME up to 40 characters and 3 words, starting with a letter ("ADA:", "Dr. Grey:", "S2:").
 */
export function lineLabel(line: string): { name: string; rest: string } | null {
  const m = LABEL.exec(line);
  if (!m) return null;
  const name = m[1]!.trim().replace(/\s+/g, ' ');
  if (name.split(' ').length > 3) return null;
  return { name, rest: line.slice(m[0].length) };
}

/** A token the service aligns as a word: it says something (a letter, a digit or "&"); "—" or "…" alone does not. */
export function isSpokenToken(token: string): boolean {
  return /[\p{L}\p{N}&]/u.test(token.normalize('NFKC'));
}

/** The words of a script as the service counts them: labels left out, punctuation alone not a word. */
export function scriptWordCount(text: string): number {
  let n = 0;
  for (const raw of text.split(/\r\n|\r|\n/)) {
    if (!raw.trim()) continue;
    const body = lineLabel(raw)?.rest ?? raw;
    for (const token of body.split(/\s+/)) if (token && isSpokenToken(token)) n++;
  }
  return n;
}

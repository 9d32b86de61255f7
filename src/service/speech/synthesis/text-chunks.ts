/**
 * Splits text into the pieces speech is streamed by: whole sentences, so the first one can be spoken and
 * sent while the rest are still being synthesized, and so no engine gets more than `maxChars` at once.
 * Very short sentences ride with the next one; a sentence that is too long is cut at a comma, semicolon
 * or dash, else at a space. Joining the pieces with spaces gives back the text up to whitespace.
 */
export function speechChunks(text: string, options: { minChars?: number; maxChars?: number } = {}): string[] {
  const minChars = options.minChars ?? 24;
  const maxChars = options.maxChars ?? 400;
  const sentences = text
    .replace(/\s+/g, ' ')
    .trim()
    .split(/(?<=[.!?…]["'”’)\]]*)\s+(?=\S)/u)
    .filter((s) => s.length > 0);
  const pieces: string[] = [];
  let pending = '';
  for (const sentence of sentences) {
    pending = pending ? `${pending} ${sentence}` : sentence;
    if (pending.length >= minChars) {
      pieces.push(...cut(pending, maxChars));
      pending = '';
    }
  }
  if (pending) {
    // A short tail joins the previous piece when that stays within bounds.
    const last = pieces.at(-1);
    if (last !== undefined && last.length + 1 + pending.length <= maxChars) pieces[pieces.length - 1] = `${last} ${pending}`;
    else pieces.push(...cut(pending, maxChars));
  }
  return pieces;
}

function cut(sentence: string, maxChars: number): string[] {
  const out: string[] = [];
  let rest = sentence;
  while (rest.length > maxChars) {
    const window = rest.slice(0, maxChars + 1);
    let at = Math.max(window.lastIndexOf(', '), window.lastIndexOf('; '), window.lastIndexOf(' – '), window.lastIndexOf(' - '));
    if (at < maxChars / 3) at = window.lastIndexOf(' ');
    if (at <= 0) at = maxChars;
    const head = rest.slice(0, at + (rest[at] === ',' || rest[at] === ';' ? 1 : 0)).trim();
    out.push(head);
    rest = rest.slice(at + 1).trim();
  }
  if (rest) out.push(rest);
  return out;
}

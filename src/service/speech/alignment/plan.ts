import { normalizeWords } from '../scoring/wer';

/**
 * How a text is aligned: each written token becomes one or more dictionary words (numbers are spelled
 * out as spoken, "1455" → "fourteen fifty five"; punctuation is dropped). A word the dictionary lacks is
 * spelled with dictionary words when it splits into them ("woodcutters" → "wood cutters"); otherwise it is
 * left out of the grammar and later placed by interpolation.
 */
export interface PlannedToken {
  /** The token as written in the text. */
  text: string;
  /** Dictionary words the decoder must find for this token, in order; empty when the token is out of vocabulary. */
  words: string[];
}

/** Splits an out-of-vocabulary word into the fewest dictionary words of at least 3 letters, if possible. */
export function decompose(word: string, has: (w: string) => boolean, minPart = 3): string[] | null {
  const n = word.length;
  // best[i] = fewest parts covering word[0, i)
  const best: Array<number> = new Array(n + 1).fill(Infinity);
  const from: number[] = new Array(n + 1).fill(-1);
  best[0] = 0;
  for (let i = 0; i < n; i++) {
    if (best[i] === Infinity) continue;
    for (let j = i + minPart; j <= n; j++) {
      if (best[i]! + 1 < best[j]! && has(word.slice(i, j))) {
        best[j] = best[i]! + 1;
        from[j] = i;
      }
    }
  }
  if (best[n] === Infinity || best[n]! < 2) return null;
  const parts: string[] = [];
  for (let j = n; j > 0; j = from[j]!) parts.unshift(word.slice(from[j]!, j));
  return parts;
}

/** Tokens of `text` with the dictionary words each must match; tokens with no letters or digits are dropped. */
export function planAlignment(text: string, has: (w: string) => boolean): PlannedToken[] {
  const planned: PlannedToken[] = [];
  for (const token of text.split(/\s+/).filter(Boolean)) {
    const normalized = normalizeWords(token);
    if (!normalized.length) continue;
    const words: string[] = [];
    let oov = false;
    for (const w of normalized) {
      if (has(w)) {
        words.push(w);
        continue;
      }
      const parts = decompose(w, has);
      if (!parts) {
        oov = true;
        break;
      }
      words.push(...parts);
    }
    planned.push({ text: token, words: oov ? [] : words });
  }
  return planned;
}

/** A linear Sphinx FSG over the words: the decoder must say them all, in order (fillers may come between). */
export function linearGrammar(words: readonly string[]): string {
  const lines = [
    'FSG_BEGIN align',
    `NUM_STATES ${words.length + 1}`,
    'START_STATE 0',
    `FINAL_STATE ${words.length}`,
  ];
  words.forEach((w, i) => lines.push(`TRANSITION ${i} ${i + 1} 1.0 ${w}`));
  lines.push('FSG_END', '');
  return lines.join('\n');
}

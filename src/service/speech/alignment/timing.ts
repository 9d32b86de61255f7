import type { RecognizedWord, Span } from '../types';
import type { PlannedToken } from './plan';

export interface DecodedWord extends Span {
  word: string;
  confidence: number;
}

/**
 * Longest common subsequence of expected and decoded words, as pairs of indices. The grammar forces the
 * decoder through every word, so this is normally the identity; it matters when the decoder could not
 * reach the grammar's end and returned only part of the text.
 */
function matchInOrder(expected: readonly string[], decoded: readonly string[]): Array<[number, number]> {
  const n = expected.length;
  const m = decoded.length;
  const len: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      len[i]![j] =
        expected[i] === decoded[j] ? len[i + 1]![j + 1]! + 1 : Math.max(len[i + 1]![j]!, len[i]![j + 1]!);
    }
  }
  const pairs: Array<[number, number]> = [];
  let i = 0,
    j = 0;
  while (i < n && j < m) {
    if (expected[i] === decoded[j]) pairs.push([i++, j++]);
    else if (len[i + 1]![j]! >= len[i]![j + 1]!) i++;
    else j++;
  }
  return pairs;
}

/** Moves the gap's edges past silences that touch them, so interpolated words land on speech. */
function trimSilence(gap: Span, silences: readonly Span[]): Span {
  let { start, end } = gap;
  for (let moved = true; moved;) {
    moved = false;
    for (const s of silences) {
      if (s.start <= start + 1e-3 && s.end > start && s.end < end) {
        start = s.end;
        moved = true;
      }
      if (s.end >= end - 1e-3 && s.start < end && s.start > start) {
        end = s.start;
        moved = true;
      }
    }
  }
  return { start, end };
}

/**
 * Word times for the planned tokens. Tokens whose dictionary words were all found take their span and
 * the lowest posterior among them. The others (out of vocabulary, or not reached by the decoder) share
 * the gap between their found neighbours in proportion to their length in letters, after the gap is
 * trimmed of silence at its edges; they get confidence 0, which marks the time as interpolated.
 */
export function assignTimes(
  tokens: readonly PlannedToken[],
  decoded: readonly DecodedWord[],
  silences: readonly Span[],
  duration: number,
): RecognizedWord[] {
  const expected: Array<{ word: string; token: number }> = [];
  tokens.forEach((t, k) => t.words.forEach((word) => expected.push({ word, token: k })));
  const pairs = matchInOrder(
    expected.map((e) => e.word),
    decoded.map((d) => d.word),
  );
  const found = new Map(pairs.map(([e, d]) => [e, decoded[d]!]));

  const out: Array<RecognizedWord | null> = tokens.map(() => null);
  let e = 0;
  tokens.forEach((t, k) => {
    const hits = t.words.map((_, i) => found.get(e + i));
    e += t.words.length;
    if (!t.words.length || hits.some((h) => !h)) return;
    out[k] = {
      word: t.text,
      start: hits[0]!.start,
      end: hits[hits.length - 1]!.end,
      confidence: Math.min(...hits.map((h) => h!.confidence)),
    };
  });

  for (let k = 0; k < tokens.length;) {
    if (out[k]) {
      k++;
      continue;
    }
    let last = k;
    while (last + 1 < tokens.length && !out[last + 1]) last++;
    const gap = trimSilence(
      { start: k > 0 ? out[k - 1]!.end : 0, end: last + 1 < tokens.length ? out[last + 1]!.start : duration },
      silences,
    );
    const letters = tokens
      .slice(k, last + 1)
      .map((t) => Math.max(1, t.text.replace(/[^\p{L}\p{N}]/gu, '').length));
    const total = letters.reduce((a, b) => a + b, 0);
    const span = Math.max(0, gap.end - gap.start);
    let at = gap.start;
    for (let i = k; i <= last; i++) {
      const length = (span * letters[i - k]!) / total;
      out[i] = { word: tokens[i]!.text, start: at, end: at + length, confidence: 0 };
      at += length;
    }
    k = last + 1;
  }
  return out as RecognizedWord[];
}

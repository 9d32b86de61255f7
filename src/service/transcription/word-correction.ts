import { spelledSyllables } from '../speech/delivery/syllables';
import { normalizeWords } from '../speech/scoring/wer';
import type { RecognizedWord, Span } from '../speech/types';

/**
 * Word corrections as pure functions: which words of a line an editor's new text keeps (they keep their
 * timings exactly), which it changes or adds (they need new times, from forced alignment of the gap
 * between the kept words around them), and how aligned times are fitted into that gap.
 */

/** Written words of a text: whitespace-separated tokens; a token with no letter or digit ("—") joins the word before it (or after, at the start). */
export function writtenWords(text: string): string[] {
  const out: string[] = [];
  let pending = '';
  for (const token of text.trim().split(/\s+/).filter(Boolean)) {
    if (!/[\p{L}\p{N}]/u.test(token)) {
      if (out.length) out[out.length - 1] += token;
      else pending += token;
      continue;
    }
    out.push(pending + token);
    pending = '';
  }
  return out;
}

/** What a word sounds like, for comparing: case, punctuation and number spelling do not count ("Hello," = "hello"). */
export function spokenKey(word: string): string {
  const words = normalizeWords(word);
  return words.length ? words.join(' ') : word.toLowerCase();
}

/** Longest common subsequence of two key sequences, as index pairs in order. */
export function matchWords(before: readonly string[], after: readonly string[]): Array<[number, number]> {
  const n = before.length;
  const m = after.length;
  const len: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      len[i]![j] = before[i] === after[j] ? len[i + 1]![j + 1]! + 1 : Math.max(len[i + 1]![j]!, len[i]![j + 1]!);
    }
  }
  const pairs: Array<[number, number]> = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (before[i] === after[j]) pairs.push([i++, j++]);
    else if (len[i + 1]![j]! >= len[i]![j + 1]!) i++;
    else j++;
  }
  return pairs;
}

/** A run of new words that need times, and the stretch of audio they must fit in. */
export interface CorrectionGap {
  /** New word indices [from, to). */
  from: number;
  to: number;
  /** Between the kept words around the run (or the line's edge). */
  window: Span;
  /** The kept words around the run (new indices), or null at the line's edge: the aligner hears them as context. */
  before: number | null;
  after: number | null;
}

export interface CorrectionPlan {
  /** The new words: kept ones carry their old timing and confidence, the others are null until timed. */
  words: Array<RecognizedWord | null>;
  /** For each new word, the old word it keeps (index), or null. */
  keptFrom: Array<number | null>;
  gaps: CorrectionGap[];
  /** Old words whose text was unchanged but had to be timed again, because the new words had no room between them (new indices). */
  retimedKept: number[];
  /** For those, the old word each stands for (by new index; null elsewhere). */
  releasedFrom: Array<number | null>;
}

export interface PlanOptions {
  /** A word-range edit: this many words at the start and end are the line's own, matched by position. */
  keepBefore?: number;
  keepAfter?: number;
  minWordSeconds?: number;
  /** Unchanged words (new indices) to time again with the words around them: their alignment failed in a narrower gap. */
  release?: readonly number[];
}

/** The least time a new word needs; a gap with less per word takes in a kept neighbour (retimed with it). */
export const MIN_WORD_SECONDS = 0.06;

/**
 * Plans a line's correction: `old` are the line's timed words, `next` the new written words, `span` the
 * line's time. Words whose spoken form is unchanged (longest common subsequence) keep their times and
 * confidence and take the new written form; the rest come in gaps between kept words. A gap too short
 * for its words (an insertion between two words that touch) takes in its kept neighbours, the longer
 * first, until it is long enough or the line has none left.
 */
export function planCorrection(
  old: readonly RecognizedWord[],
  next: readonly string[],
  span: Span,
  options: PlanOptions = {},
): CorrectionPlan {
  const minWordSeconds = options.minWordSeconds ?? MIN_WORD_SECONDS;
  // A word-range edit: the words outside the range are the same words, matched by position.
  const head = Math.min(options.keepBefore ?? 0, old.length, next.length);
  const tail = Math.min(options.keepAfter ?? 0, old.length - head, next.length - head);
  const pairs: Array<[number, number]> = [];
  for (let k = 0; k < head; k++) pairs.push([k, k]);
  for (const [i, j] of matchWords(
    old.slice(head, old.length - tail).map((w) => spokenKey(w.word)),
    next.slice(head, next.length - tail).map(spokenKey),
  )) {
    pairs.push([i + head, j + head]);
  }
  for (let k = tail; k > 0; k--) pairs.push([old.length - k, next.length - k]);
  const keptFrom: Array<number | null> = next.map(() => null);
  for (const [i, j] of pairs) keptFrom[j] = i;
  const retimed = new Set<number>();
  const releasedFrom: Array<number | null> = next.map(() => null);
  for (const j of options.release ?? []) {
    if (keptFrom[j] === null || keptFrom[j] === undefined) continue;
    releasedFrom[j] = keptFrom[j]!;
    keptFrom[j] = null;
    retimed.add(j);
  }

  const gapsOf = (): CorrectionGap[] => {
    const gaps: CorrectionGap[] = [];
    for (let j = 0; j < next.length; ) {
      if (keptFrom[j] !== null) {
        j++;
        continue;
      }
      const from = j;
      while (j < next.length && keptFrom[j] === null) j++;
      const before = from > 0 ? from - 1 : null;
      const after = j < next.length ? j : null;
      gaps.push({
        from,
        to: j,
        before,
        after,
        window: {
          start: before !== null ? old[keptFrom[before]!]!.end : span.start,
          end: after !== null ? old[keptFrom[after]!]!.start : span.end,
        },
      });
    }
    return gaps;
  };

  let gaps = gapsOf();
  for (;;) {
    const narrow = gaps.find((g) => g.window.end - g.window.start < minWordSeconds * (g.to - g.from) && (g.before !== null || g.after !== null));
    if (!narrow) break;
    // The longer neighbour first: it frees more room for the same loss of kept times.
    const length = (j: number | null) => (j === null ? -1 : old[keptFrom[j]!]!.end - old[keptFrom[j]!]!.start);
    const take = length(narrow.before) >= length(narrow.after) ? narrow.before! : narrow.after!;
    releasedFrom[take] = keptFrom[take]!;
    keptFrom[take] = null;
    retimed.add(take);
    gaps = gapsOf();
  }

  const words = next.map((word, j) => {
    const i = keptFrom[j];
    if (i === null || i === undefined) return null;
    const w = old[i]!;
    return { word, start: w.start, end: w.end, confidence: w.confidence };
  });
  return { words, keptFrom, gaps, retimedKept: [...retimed].sort((a, b) => a - b), releasedFrom };
}

/** Shares a window among words in proportion to their syllables (spelled estimate), in order. */
export function spreadByWeight(words: readonly string[], window: Span): Span[] {
  const weights = words.map((w) => Math.max(1, spelledSyllables(w)));
  const total = weights.reduce((a, b) => a + b, 0);
  const length = Math.max(0, window.end - window.start);
  let at = window.start;
  return weights.map((weight) => {
    const start = at;
    at += (length * weight) / total;
    return { start: round(start), end: round(at) };
  });
}

/**
 * Fits aligned times (one per word, in order) into the window: clipped to it, each word starting no earlier
 * than the one before ends. Null when they cannot be used: a count that does not match, or a word left
 * with no time inside the window (the aligner placed it outside); the caller then spreads by weight.
 */
export function fitAligned(aligned: readonly Span[] | null, count: number, window: Span): Span[] | null {
  if (!aligned || aligned.length !== count) return null;
  const out: Span[] = [];
  let floor = window.start;
  for (const w of aligned) {
    const start = round(Math.max(w.start, floor, window.start));
    const end = round(Math.min(w.end, window.end));
    if (!(end > start)) return null;
    out.push({ start, end });
    floor = end;
  }
  return out;
}

function round(t: number): number {
  return Math.round(t * 1000) / 1000;
}

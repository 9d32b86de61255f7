/**
 * The recognizer's word confidence (0–1, as the transcript carries it) in three bands the studio shades:
 * below 0.5 a word is doubtful (more likely wrong than right), 0.5 to under 0.8 unsure, 0.8 and above sure.
 * Pure, so the bands and the doubtful-word walk are tested without a browser.
 */
export const DOUBTFUL_BELOW = 0.5;
export const UNSURE_BELOW = 0.8;

export type ConfidenceBand = 'doubtful' | 'unsure' | 'sure';
/** A band, or `confirmed`: the word is on a line the editor saved whole, whatever the recognizer thought. */
export type WordShade = ConfidenceBand | 'confirmed';

export function confidenceBand(confidence: number): ConfidenceBand {
  if (!(confidence >= DOUBTFUL_BELOW)) return 'doubtful';
  return confidence < UNSURE_BELOW ? 'unsure' : 'sure';
}

export function wordShade(confidence: number, line: { confirmed?: boolean }): WordShade {
  return line.confirmed ? 'confirmed' : confidenceBand(confidence);
}

export interface WordRef {
  /** Index of the line in the transcript's segments. */
  line: number;
  word: number;
}

interface LineLike {
  words: readonly { confidence: number }[];
  confirmed?: boolean;
}

/** Doubtful words left to check: a confirmed line has none. */
export function countDoubtful(lines: readonly LineLike[]): number {
  let n = 0;
  for (const l of lines) for (const w of l.words) if (wordShade(w.confidence, l) === 'doubtful') n++;
  return n;
}

/**
 * The next doubtful word after `from` (dir 1) or before it (dir −1), wrapping round the transcript;
 * null when there is none. `from` null starts before the first word (or after the last going back).
 */
export function nextDoubtful(lines: readonly LineLike[], from: WordRef | null, dir: 1 | -1): WordRef | null {
  const flat: WordRef[] = [];
  lines.forEach((l, line) =>
    l.words.forEach((w, word) => {
      if (wordShade(w.confidence, l) === 'doubtful') flat.push({ line, word });
    }),
  );
  if (flat.length === 0) return null;
  const before = (a: WordRef, b: WordRef) => a.line < b.line || (a.line === b.line && a.word < b.word);
  if (dir === 1) {
    if (!from) return flat[0]!;
    return flat.find((r) => before(from, r)) ?? flat[0]!;
  }
  if (!from) return flat[flat.length - 1]!;
  for (let i = flat.length - 1; i >= 0; i--) if (before(flat[i]!, from)) return flat[i]!;
  return flat[flat.length - 1]!;
}

/**
 * How well written sentence ends match a reference's: the reference's inner sentence ends (a word followed
 * by ".", "!" or "?" that is not the text's last word) against the hypothesis' inner ends, after aligning
 * the two texts' normalised words. A hypothesis end counts as found when it falls within `tolerance`
 * words of an unmatched reference end (recognition errors shift words around a boundary); every other
 * hypothesis end is a false one. The text's final end is not scored: every transcript has one.
 */
import { alignmentPath, normalizeWords } from './wer';

export interface SentenceEndScore {
  /** Inner sentence ends in the reference. */
  referenceEnds: number;
  /** Of those, how many the hypothesis wrote (within the tolerance). */
  found: number;
  /** Inner sentence ends in the hypothesis. */
  hypothesisEnds: number;
  /** Hypothesis ends with no reference end near them. */
  falseEnds: number;
}

/** Titles and initials whose period ends no sentence ("Mr. Newman", "H. G. Bennet"). */
const ABBREVIATION = /^(?:mr|mrs|ms|dr|st|hon|rev|jr|sr|vs|etc|[a-z])\.$/i;

/** Normalised words of a punctuated text and the indexes of the words that end an inner sentence. */
export function sentenceEndWords(text: string): { words: string[]; ends: number[] } {
  const words: string[] = [];
  const ends: number[] = [];
  let sentence: string[] = [];
  const close = (inner: boolean) => {
    const before = words.length;
    words.push(...normalizeWords(sentence.join(' ')));
    if (inner && words.length > before) ends.push(words.length - 1);
    sentence = [];
  };
  for (const token of text.split(/\s+/).filter(Boolean)) {
    sentence.push(token);
    const bare = token.replace(/["'’”)\]]+$/, '');
    if (/[.!?]$/.test(bare) && !ABBREVIATION.test(bare)) close(true);
  }
  close(false);
  // The text's own last sentence end is not inner.
  if (ends.length && ends[ends.length - 1] === words.length - 1) ends.pop();
  return { words, ends };
}

export function scoreSentenceEnds(reference: string, hypothesis: string, tolerance = 1): SentenceEndScore {
  const ref = sentenceEndWords(reference);
  const hyp = sentenceEndWords(hypothesis);
  // Each hypothesis word's place in the reference: its aligned word, or for an inserted word the reference
  // word before it.
  const place = new Array<number>(hyp.words.length).fill(-1);
  let lastRef = -1;
  for (const step of alignmentPath(ref.words, hyp.words)) {
    if (step.ref !== null) lastRef = step.ref;
    if (step.hyp !== null) place[step.hyp] = lastRef;
  }
  const unmatched = new Set(ref.ends);
  let falseEnds = 0;
  for (const end of hyp.ends) {
    const at = place[end]!;
    let best: number | null = null;
    for (const r of unmatched) {
      if (Math.abs(r - at) <= tolerance && (best === null || Math.abs(r - at) < Math.abs(best - at))) best = r;
    }
    if (best === null) falseEnds++;
    else unmatched.delete(best);
  }
  return {
    referenceEnds: ref.ends.length,
    found: ref.ends.length - unmatched.size,
    hypothesisEnds: hyp.ends.length,
    falseEnds,
  };
}

/** Sums scores over several texts. */
export function sumSentenceEnds(scores: readonly SentenceEndScore[]): SentenceEndScore {
  const total: SentenceEndScore = { referenceEnds: 0, found: 0, hypothesisEnds: 0, falseEnds: 0 };
  for (const s of scores) {
    total.referenceEnds += s.referenceEnds;
    total.found += s.found;
    total.hypothesisEnds += s.hypothesisEnds;
    total.falseEnds += s.falseEnds;
  }
  return total;
}

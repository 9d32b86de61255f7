import { median } from '../../dsp/stats';
import { SENTENCE_RULE, sentenceMarks } from '../text/sentences';

/**
 * Where sentences end (README "Sentence ends"). The transcript's punctuation decides when the recording's
 * transcript has any (a recognizer that punctuates marks every end); otherwise the rule that writes
 * PocketSphinx transcripts (speech/text/sentences.ts) is applied to the analysis' own pitch: each word's
 * fall is how far the F0 it ends on lies below the line's median word pitch, and the end of the line counts
 * as the shortest sentence pause, so it ends a sentence only on a fall.
 */
const TERMINAL = /[.!?…]["'”’)\]]*$/;

export interface SentenceWord {
  word: string;
  start: number;
  end: number;
  filler?: boolean;
  pitch_hz: number | null;
  end_pitch_hz: number | null;
}

/** True when any word of the transcript carries sentence punctuation (then punctuation decides everywhere). */
export function isPunctuated(lines: ReadonlyArray<{ words: ReadonlyArray<{ word: string }> }>): boolean {
  return lines.some((l) => l.words.some((w) => TERMINAL.test(w.word) || /[,;:]$/.test(w.word)));
}

export function endsWithPunctuation(word: string): boolean {
  return TERMINAL.test(word);
}

const st = (hz: number) => 12 * Math.log2(hz);

/** Indices of the words that end a sentence, in order. */
export function sentenceEnds(words: ReadonlyArray<SentenceWord>, punctuated: boolean): number[] {
  if (punctuated) return words.flatMap((w, i) => (endsWithPunctuation(w.word) ? [i] : []));
  const pitches = words.flatMap((w) => (w.filler || w.pitch_hz === null ? [] : [st(w.pitch_hz)]));
  const lineMedian = median(pitches);
  const lexical = words.map((w, i) => ({ w, i })).filter(({ w }) => !w.filler);
  const last = lexical.at(-1)?.w;
  if (lineMedian === null || !last) return [];
  const cues = lexical.map(({ w }) => ({
    word: w.word,
    start: w.start,
    end: w.end,
    fall: w.end_pitch_hz === null ? null : lineMedian - st(w.end_pitch_hz),
  }));
  const marks = sentenceMarks(cues, last.end + SENTENCE_RULE.shortPause);
  return lexical.flatMap(({ i }, j) => (marks[j] === '.' ? [i] : []));
}

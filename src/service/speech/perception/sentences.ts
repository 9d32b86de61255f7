import { median } from '../../dsp/stats';

/**
 * Where sentences end (README "Sentence ends"). The transcript's punctuation decides when the recording's
 * transcript has any (a recognizer that punctuates marks every end); otherwise a word ends a sentence when
 * a pause of at least SENTENCE_PAUSE follows it (or it ends the line) and its pitch falls: the F0 it ends
 * on is at least PITCH_FALL_ST below the line's median word pitch — the final fall of a statement.
 */
export const SENTENCE_PAUSE = 0.3;
export const PITCH_FALL_ST = 2;

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
  if (lineMedian === null) return [];
  const out: number[] = [];
  const lexical = words.map((w, i) => ({ w, i })).filter(({ w }) => !w.filler);
  lexical.forEach(({ w, i }, j) => {
    const next = lexical[j + 1]?.w;
    const pause = next ? next.start - w.end : Infinity;
    if (pause < SENTENCE_PAUSE - 1e-9 || w.end_pitch_hz === null) return;
    if (st(w.end_pitch_hz) <= lineMedian - PITCH_FALL_ST) out.push(i);
  });
  return out;
}

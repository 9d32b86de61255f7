import { isFillerWord } from './syllables';

export interface SyllableCounter {
  count(word: string): number;
}

export interface LinePace {
  /** Syllables per second of speech with pauses taken out; null when there is too little speech to say. */
  articulation_rate: number | null;
  /** Words per minute over the speech span (pauses included), fillers not counted. */
  pace_wpm: number | null;
  syllables: number;
  /** Speech time without pauses, seconds. */
  articulation_seconds: number;
}

/** Below this much articulation time a rate is noise (one short word). */
const MIN_ARTICULATION_SECONDS = 0.3;

export function linePace(
  words: ReadonlyArray<{ word: string }>,
  dictionary: SyllableCounter,
  span: { speech_start: number; speech_end: number; pause_seconds: number },
): LinePace {
  const lexical = words.filter((w) => !isFillerWord(w.word));
  const syllables = lexical.reduce((n, w) => n + dictionary.count(w.word), 0);
  const speech = Math.max(0, span.speech_end - span.speech_start);
  const articulation = Math.max(0, speech - span.pause_seconds);
  const r2 = (x: number) => Math.round(x * 100) / 100;
  return {
    articulation_rate: articulation >= MIN_ARTICULATION_SECONDS && syllables > 0 ? r2(syllables / articulation) : null,
    pace_wpm: speech >= MIN_ARTICULATION_SECONDS && lexical.length > 0 ? r2((lexical.length / speech) * 60) : null,
    syllables,
    articulation_seconds: Math.round(articulation * 1000) / 1000,
  };
}

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

/** Syllables per second of articulation, 2 decimals; null with too little time or nothing counted. */
export function articulationRate(syllables: number, articulationSeconds: number): number | null {
  return articulationSeconds >= MIN_ARTICULATION_SECONDS && syllables > 0 ? Math.round((syllables / articulationSeconds) * 100) / 100 : null;
}

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
    articulation_rate: articulationRate(syllables, articulation),
    pace_wpm: speech >= MIN_ARTICULATION_SECONDS && lexical.length > 0 ? r2((lexical.length / speech) * 60) : null,
    syllables,
    articulation_seconds: Math.round(articulation * 1000) / 1000,
  };
}

/** One line's two syllable counts (see calibratedSyllables). */
export interface SyllableCounts {
  /** Dictionary syllables of the recognized words. */
  dictionary: number;
  /** Syllable nuclei read from the signal (nuclei.ts). */
  nuclei: number;
  /** Whether the line counts towards the speaker's calibration (default true). */
  usual?: boolean;
}

/**
 * How the two counts would combine (docs/analysis.md, "Pace"; measured and kept, not published: the analysis publishes
 * the dictionary count, see withSignalPace in analysis/run-analysis.ts): the signal says how fast each line goes, the recognizer says
 * how many syllables a nucleus stands for. Each line's syllables are its nuclei times the speaker's
 * dictionary syllables per nucleus over all their lines (a ratio of sums, so a line the recognizer
 * mangled moves it by its share only). Within a speaker the lines then compare by their nuclei alone —
 * pace_vs_speaker, rushed/slow and pace shifts follow the speech, not the recognizer — while the
 * speaker's overall rate stays the dictionary's (Σ calibrated = Σ dictionary over the usual lines), so
 * the absolute figure keeps the dictionary's scale and loses the nuclei method's known undercount of
 * unstressed syllables. Nothing is fitted: no threshold or weight. When the speaker has no nuclei or no
 * dictionary syllables at all, the dictionary counts stand as they are.
 */
export function calibratedSyllables(lines: ReadonlyArray<SyllableCounts>): number[] {
  let dictionary = 0;
  let nuclei = 0;
  for (const l of lines) {
    if (l.usual === false) continue;
    dictionary += l.dictionary;
    nuclei += l.nuclei;
  }
  if (!(dictionary > 0 && nuclei > 0)) return lines.map((l) => l.dictionary);
  const perNucleus = dictionary / nuclei;
  return lines.map((l) => Math.round(l.nuclei * perNucleus * 100) / 100);
}

/** A line as the speaker calibration sees it: `nuclei` absent where it was not measured (runs stored before). */
export interface SpeakerLineCounts {
  speaker: string;
  /** Dictionary syllables of the recognized words. */
  syllables: number;
  nuclei?: number;
}

/**
 * calibratedSyllables for every speaker of a recording, line by line in the order given. A speaker any of
 * whose lines lacks a nuclei count keeps the dictionary counts, so no speaker's lines mix the two measures.
 */
export function speakerCalibratedSyllables(lines: ReadonlyArray<SpeakerLineCounts>): number[] {
  const out = lines.map((l) => l.syllables);
  const bySpeaker = new Map<string, number[]>();
  lines.forEach((l, i) => bySpeaker.set(l.speaker, [...(bySpeaker.get(l.speaker) ?? []), i]));
  for (const indices of bySpeaker.values()) {
    if (indices.some((i) => lines[i]!.nuclei === undefined)) continue;
    const calibrated = calibratedSyllables(indices.map((i) => ({ dictionary: lines[i]!.syllables, nuclei: lines[i]!.nuclei! })));
    indices.forEach((i, k) => (out[i] = calibrated[k]!));
  }
  return out;
}

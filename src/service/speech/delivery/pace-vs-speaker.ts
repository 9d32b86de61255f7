/** A line as its pace against the speaker is read: both syllable counts over the same articulation time. */
export interface PaceCounts {
  speaker: string;
  /** Dictionary syllables of the recognized words. */
  syllables: number;
  /** Syllable nuclei read from the signal (delivery/nuclei.ts); absent in runs stored before they were measured. */
  nuclei?: number;
  articulation_seconds: number;
}

/** Below this much articulation a line's rate is noise (as articulationRate in pace.ts). */
const MIN_ARTICULATION_SECONDS = 0.3;

const rate = (count: number, seconds: number) => (seconds >= MIN_ARTICULATION_SECONDS && count > 0 ? count / seconds : null);

/**
 * Each line's rate over the speaker's usual rate, by one count: the usual rate is the speaker's other lines'
 * syllables over their articulation time (a ratio of sums, so short lines weigh what they hold). Leaving the
 * line out keeps a rushed line from raising its own yardstick: pooled with it, a 1.35× sentence among seven
 * read about 4 % slower than it was. (A median of the other lines' rates was tried on bench/pace's tuning
 * half and spread the untouched lines further: with eight or so lines the median follows the reader's
 * sentence-to-sentence swings.) A speaker with no other timed line reads against all their lines, so a lone
 * line reads 1.
 */
export function paceRatios(lines: ReadonlyArray<PaceCounts>, count: (l: PaceCounts) => number): Array<number | null> {
  const totals = new Map<string, { count: number; seconds: number }>();
  for (const l of lines) {
    if (rate(count(l), l.articulation_seconds) === null) continue;
    const t = totals.get(l.speaker) ?? { count: 0, seconds: 0 };
    t.count += count(l);
    t.seconds += l.articulation_seconds;
    totals.set(l.speaker, t);
  }
  return lines.map((line) => {
    const own = rate(count(line), line.articulation_seconds);
    const all = totals.get(line.speaker);
    if (own === null || !all) return null;
    const usual = rate(all.count - count(line), all.seconds - line.articulation_seconds) ?? rate(all.count, all.seconds);
    return usual && usual > 0 ? own / usual : null;
  });
}

/**
 * pace_vs_speaker of every line (1 = the speaker's usual pace, 1.3 = 30 % faster), read from both counts, each
 * against the same count on the speaker's other lines (so no scale between the counts is needed). On a line
 * spoken faster or slower than usual each count errs towards "usual" in its own way — the recognizer drops and
 * merges words in fast speech, the nuclei merge unstressed syllables when syllables crowd and split stretched
 * vowels when they slow — so where both point the same way the one that moved further is read; where they
 * disagree neither is trusted alone and their geometric mean is read. (The geometric mean throughout labelled
 * fewer lines, but it took the nuclei's undercount of fast syllables into every reading: a line sped 1.3×
 * with its words known exactly read 1.16.) A speaker any of whose lines lacks a nuclei count reads the
 * dictionary alone, so no speaker's lines mix measures. No threshold or weight is fitted.
 */
export function paceAgainstSpeaker(lines: ReadonlyArray<PaceCounts>): Array<number | null> {
  const dictionary = paceRatios(lines, (l) => l.syllables);
  const withNuclei = new Set(lines.map((l) => l.speaker));
  for (const l of lines) if (l.nuclei === undefined) withNuclei.delete(l.speaker);
  const nuclei = paceRatios(lines, (l) => l.nuclei ?? 0);
  return lines.map((l, i) => {
    const d = dictionary[i]!;
    const n = withNuclei.has(l.speaker) ? nuclei[i]! : null;
    const r = d === null ? n : n === null ? d : largerChange(d, n);
    return r === null ? null : Math.round(r * 1000) / 1000;
  });
}

/** Two ratios of the same line: the larger change where they agree in direction, else their geometric mean. */
export function largerChange(a: number, b: number): number {
  if (a >= 1 && b >= 1) return Math.max(a, b);
  if (a <= 1 && b <= 1) return Math.min(a, b);
  return Math.sqrt(a * b);
}

import { weightedMedian } from '../../dsp/stats';

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
 * Each line's rate over the speaker's usual rate, by one count: the usual rate is the median of the speaker's
 * other lines' rates, weighted by their articulation time. Leaving the line out keeps a rushed line from
 * raising its own yardstick (a ratio of sums over all lines, the line included, took a 1.35× sentence among
 * eight down by about 4 %), and the median keeps one odd line (a split sentence's short tail, a mangled
 * recognition) from moving it. A speaker with no other timed line reads against all their lines, so a lone
 * line reads 1.
 */
export function paceRatios(lines: ReadonlyArray<PaceCounts>, count: (l: PaceCounts) => number): Array<number | null> {
  const rates = lines.map((l) => rate(count(l), l.articulation_seconds));
  return lines.map((line, i) => {
    const own = rates[i];
    if (own === null || own === undefined) return null;
    const others = lines.flatMap((l, j) => (j !== i && l.speaker === line.speaker ? [{ value: rates[j]!, weight: l.articulation_seconds }] : []));
    let usual = weightedMedian(others);
    if (usual === null) {
      const mine = lines.filter((l) => l.speaker === line.speaker);
      usual = rate(
        mine.reduce((s, l) => s + count(l), 0),
        mine.reduce((s, l) => s + l.articulation_seconds, 0),
      );
    }
    return usual && usual > 0 ? own / usual : null;
  });
}

/**
 * pace_vs_speaker of every line (1 = the speaker's usual pace, 1.3 = 30 % faster), read from both counts.
 * The recognizer drops and merges words when speech is fast, so the dictionary count reads a rushed line too
 * slow; the signal's nuclei merge unstressed syllables and split stretched vowels, so each count alone errs
 * towards "usual" in its own way. Each count is compared with the same count on the speaker's other lines (so
 * no scale between them is needed), and where both point the same way the one that moved further is read —
 * the change both see, at the size the less damaged count shows; where they disagree, neither is trusted
 * alone and their geometric mean is read. A speaker any of whose lines lacks a nuclei count reads the
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
    const r = d === null ? n : n === null ? d : combine(d, n);
    return r === null ? null : Math.round(r * 1000) / 1000;
  });
}

/** Two ratios of the same line: the larger change where they agree in direction, else their geometric mean. */
export function combine(a: number, b: number): number {
  if (a >= 1 && b >= 1) return Math.max(a, b);
  if (a <= 1 && b <= 1) return Math.min(a, b);
  return Math.sqrt(a * b);
}

import type { Baseline } from '../../../shared/schemas/analysis';
import { weightedMedian } from '../../dsp/stats';

/** What a line contributes to its speaker's baseline. */
export interface BaselineLine {
  speaker: string;
  /** Seconds of speech (the line's speech span); the weight of its values. */
  speech_seconds: number;
  pitch_hz: number | null;
  pitch_range_st: number | null;
  energy_db: number | null;
  energy_range_db: number | null;
  pitch_perturbation: number | null;
  syllables: number;
  articulation_seconds: number;
}

const r = (x: number | null, digits: number) => (x === null ? null : Math.round(x * 10 ** digits) / 10 ** digits);

/**
 * Each speaker's usual delivery over all their lines: medians weighted by speech time (robust to a few
 * shouted or whispered lines), and the articulation rate as all their syllables over all their articulation
 * time (a ratio of sums, so short lines weigh what they hold).
 */
export function speakerBaselines(lines: ReadonlyArray<BaselineLine>): Record<string, Baseline> {
  const bySpeaker = new Map<string, BaselineLine[]>();
  for (const line of lines) bySpeaker.set(line.speaker, [...(bySpeaker.get(line.speaker) ?? []), line]);
  const out: Record<string, Baseline> = {};
  for (const [speaker, own] of bySpeaker) {
    const med = (pick: (l: BaselineLine) => number | null) => weightedMedian(own.map((l) => ({ value: pick(l), weight: l.speech_seconds })));
    const syllables = own.reduce((s, l) => s + l.syllables, 0);
    const seconds = own.reduce((s, l) => s + l.articulation_seconds, 0);
    out[speaker] = {
      pitch_hz: r(med((l) => l.pitch_hz), 1),
      pitch_range_st: r(med((l) => l.pitch_range_st), 2),
      articulation_rate: seconds > 0 && syllables > 0 ? r(syllables / seconds, 2) : null,
      energy_db: r(med((l) => l.energy_db), 1),
      pitch_perturbation: r(med((l) => l.pitch_perturbation), 4),
      energy_range_db: r(med((l) => l.energy_range_db), 1),
      lines: own.length,
      speech_seconds: r(own.reduce((s, l) => s + l.speech_seconds, 0), 2)!,
    };
  }
  return out;
}

export interface RelativeProsody {
  /** Line articulation rate ÷ the speaker's (1 = their usual pace, 1.3 = 30% faster). */
  pace_vs_speaker: number | null;
  /** Semitones above (+) or below (−) the speaker's median pitch. */
  pitch_vs_speaker_st: number | null;
  /** dB louder (+) or quieter (−) than the speaker's median level. */
  energy_vs_speaker_db: number | null;
  /** Semitones wider (+) or narrower (−) pitch range than the speaker's median range. */
  pitch_range_vs_speaker_st: number | null;
}

export function relativeToSpeaker(
  line: { articulation_rate: number | null; pitch_hz: number | null; energy_db: number | null; pitch_range_st: number | null },
  baseline: Baseline | undefined,
): RelativeProsody {
  const both = <T>(a: T | null | undefined, b: T | null | undefined): [T, T] | null => (a === null || a === undefined || b === null || b === undefined ? null : [a, b]);
  const pace = both(line.articulation_rate, baseline?.articulation_rate);
  const pitch = both(line.pitch_hz, baseline?.pitch_hz);
  const energy = both(line.energy_db, baseline?.energy_db);
  const range = both(line.pitch_range_st, baseline?.pitch_range_st);
  return {
    pace_vs_speaker: pace && pace[1] > 0 ? r(pace[0] / pace[1], 3) : null,
    pitch_vs_speaker_st: pitch && pitch[0] > 0 && pitch[1] > 0 ? r(12 * Math.log2(pitch[0] / pitch[1]), 2) : null,
    energy_vs_speaker_db: energy ? r(energy[0] - energy[1], 2) : null,
    pitch_range_vs_speaker_st: range ? r(range[0] - range[1], 2) : null,
  };
}

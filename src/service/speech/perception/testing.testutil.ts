import type { AnalysisSegment, Prosody } from '../../../shared/schemas/analysis';
import type { WordMeasure } from './words';

/** A line of `n` even words (120 Hz, −25 dBFS, 0.2 s each, 0.05 s apart) starting at `start`. */
export function evenWords(n: number, start = 0, text?: string[]): WordMeasure[] {
  return Array.from({ length: n }, (_, i) => ({
    word: text?.[i] ?? `w${i}`,
    start: start + i * 0.25,
    end: start + i * 0.25 + 0.2,
    syllables: 1,
    filler: false,
    pitch_hz: 120,
    end_pitch_hz: 120,
    energy_db: -25,
  }));
}

/** Prosody of a line exactly at its speaker's baseline. */
export function usualProsody(over: Partial<Prosody> = {}): Prosody {
  return {
    energy_db: -25,
    energy_range_db: 10,
    voiced_ratio: 0.7,
    pitch_hz: 120,
    pitch_range_st: 8,
    pitch_variability_st: 2,
    pitch_perturbation: 0.01,
    amplitude_perturbation: 0.05,
    hnr_db: 15,
    pauses: [],
    articulation_rate: 5,
    pace_wpm: 180,
    hesitations: 0,
    longest_pause: 0,
    pace_vs_speaker: 1,
    pitch_vs_speaker_st: 0,
    energy_vs_speaker_db: 0,
    pitch_range_vs_speaker_st: 0,
    source: 'measured',
    ...over,
  };
}

export const BASELINE = {
  pitch_hz: 120,
  pitch_range_st: 8,
  articulation_rate: 5,
  energy_db: -25,
  pitch_perturbation: 0.01,
  energy_range_db: 10,
  lines: 10,
  speech_seconds: 60,
};

/** A measured line (no perception yet) of `words` words. */
export function measuredLine(id: number, speaker: string, start: number, end: number, over: Partial<AnalysisSegment> = {}): AnalysisSegment {
  return {
    id,
    speaker,
    start,
    end,
    speech_start: start,
    speech_end: end,
    text: 'some words here',
    prosody: usualProsody(),
    quality: {
      snr_db: 40,
      noise_db: -70,
      clipping_ratio: 0,
      low_frequency_share_db: -30,
      wind_index: 0,
      plosives: 0,
      mic: 'near',
      mos: null,
      score: 0.9,
      issues: [],
      sources: ['measured'],
    },
    ambience: { layers: [], sound: { label: null, level_db: null, margin_db: null }, competes: false, source: 'measured' },
    perception: null,
    delivery: null,
    emphasis: [],
    ...over,
  };
}

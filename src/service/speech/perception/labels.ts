import type { Baseline, DeliveryLabel, Emphasis, Prosody } from '../../../shared/schemas/analysis';
import { median } from '../../dsp/stats';
import type { WordMeasure } from './words';

/**
 * Delivery labels of one line, each relative to the speaker's own baselines (README "Delivery labels"), so a
 * naturally fast, low or quiet speaker is not labelled for being themselves.
 */
export const RUSHED_PACE = 1.2;
export const SLOW_PACE = 0.8;
export const FLAT_RANGE_ST = -3;
export const FLAT_RANGE_RATIO = 0.6;
export const FLAT_MIN_SPEECH = 1.5;
export const EMPHATIC_RANGE_ST = 4;
export const EMPHATIC_LEVEL_DB = 3;
export const EMPHATIC_RANGE_WORDS = 2;
export const HESITANT_MIN = 2;
export const HESITANT_MIN_PER_MINUTE = 8;
export const HESITANT_SPEAKER_FACTOR = 2;
export const QUIET_DB = -6;
export const MUMBLED_DB = -4;
export const MUMBLED_RANGE_ST = -2;
export const TRAILING_DB = -8;
export const TRAILING_MIN_WORDS = 4;

export interface LineFeatures {
  /** Seconds between the line's first and last sound. */
  speech_seconds: number;
  prosody: Pick<
    Prosody,
    'pace_vs_speaker' | 'pitch_range_vs_speaker_st' | 'energy_vs_speaker_db' | 'pitch_vs_speaker_st' | 'pitch_range_st' | 'hesitations' | 'pauses' | 'longest_pause' | 'pitch_perturbation'
  >;
  words: ReadonlyArray<WordMeasure>;
  baseline: Pick<Baseline, 'pitch_range_st' | 'pitch_perturbation' | 'pitch_hz' | 'energy_db'> | undefined;
  /** The speaker's hesitations per minute of speech over the recording. */
  speaker_hesitations_per_minute: number;
  emphasis: ReadonlyArray<Emphasis>;
}

/** Mean level of the last two words against the median word level of the rest, dB (null: too few words). */
export function endingDrop(words: ReadonlyArray<WordMeasure>): number | null {
  const levels = words.filter((w) => !w.filler && w.energy_db !== null && w.end > w.start).map((w) => w.energy_db!);
  if (levels.length < TRAILING_MIN_WORDS) return null;
  const rest = median(levels.slice(0, -2))!;
  const tail = 10 * Math.log10((10 ** (levels.at(-1)! / 10) + 10 ** (levels.at(-2)! / 10)) / 2);
  return tail - rest;
}

export function hesitationsPerMinute(hesitations: number, speechSeconds: number): number {
  return speechSeconds > 0 ? (hesitations / speechSeconds) * 60 : 0;
}

export function deliveryLabels(f: LineFeatures): DeliveryLabel[] {
  const p = f.prosody;
  const labels: DeliveryLabel[] = [];
  if (p.pace_vs_speaker !== null && p.pace_vs_speaker >= RUSHED_PACE) labels.push('rushed');
  if (p.pace_vs_speaker !== null && p.pace_vs_speaker <= SLOW_PACE) labels.push('slow');
  const baseRange = f.baseline?.pitch_range_st ?? null;
  if (
    f.speech_seconds >= FLAT_MIN_SPEECH &&
    p.pitch_range_vs_speaker_st !== null &&
    p.pitch_range_st !== null &&
    baseRange !== null &&
    p.pitch_range_vs_speaker_st <= FLAT_RANGE_ST &&
    p.pitch_range_st <= FLAT_RANGE_RATIO * baseRange
  )
    labels.push('flat');
  // Louder than usual with a stressed word, or a much wider range (not quieter) with several stressed words.
  const louder = (p.energy_vs_speaker_db ?? 0) >= EMPHATIC_LEVEL_DB && f.emphasis.length > 0;
  const wider = (p.pitch_range_vs_speaker_st ?? 0) >= EMPHATIC_RANGE_ST && (p.energy_vs_speaker_db ?? 0) >= 0 && f.emphasis.length >= EMPHATIC_RANGE_WORDS;
  if (louder || wider) labels.push('emphatic');
  const rate = hesitationsPerMinute(p.hesitations, f.speech_seconds);
  if (p.hesitations >= HESITANT_MIN && rate >= Math.max(HESITANT_MIN_PER_MINUTE, HESITANT_SPEAKER_FACTOR * f.speaker_hesitations_per_minute)) labels.push('hesitant');
  const level = p.energy_vs_speaker_db;
  if (level !== null && level <= MUMBLED_DB && p.pitch_range_vs_speaker_st !== null && p.pitch_range_vs_speaker_st <= MUMBLED_RANGE_ST) labels.push('mumbled');
  const drop = endingDrop(f.words);
  if (drop !== null && drop <= TRAILING_DB) labels.push('trailing_off');
  if (level !== null && level <= QUIET_DB) labels.push('quiet');
  return labels;
}

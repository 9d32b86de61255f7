import type { DeliveryLabel, Emotion } from '../../../shared/schemas/analysis';
import type { LineFeatures } from './labels';

/**
 * The listener's dimensions of one line, estimated from the measures relative to the speaker (README
 * "Perception dimensions"). Linear in the relative measures, clamped; the weights make a 1.3× pace, a 10 dB
 * level change or a 6 st range change move a dimension by roughly 0.2–0.3. Nothing here listened: a rule-based
 * reading of prosody, for ranking and spotting lines, not a verdict on the speaker's feelings.
 */
export interface Dimensions {
  arousal: number;
  valence: number;
  confidence: number;
  engagement: number;
  intensity: number;
}

const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));
const r2 = (x: number) => Math.round(x * 100) / 100;

/** Jitter this many times the speaker's usual reads as a shaky voice. */
export const SHAKY_JITTER_RATIO = 1.5;

export function dimensions(f: LineFeatures, labels: ReadonlyArray<DeliveryLabel>, reactions: ReadonlyArray<string>): Dimensions {
  const p = f.prosody;
  const e = clamp(p.energy_vs_speaker_db ?? 0, -20, 20);
  const pitch = clamp(p.pitch_vs_speaker_st ?? 0, -12, 12);
  // Range differences are capped at ±6 st: wider spans are mostly octave jumps of the pitch track.
  const range = clamp(p.pitch_range_vs_speaker_st ?? 0, -6, 6);
  const pace = clamp(p.pace_vs_speaker ?? 1, 0.4, 2);
  const has = (l: DeliveryLabel) => (labels.includes(l) ? 1 : 0);
  const arousal = clamp(0.5 + 0.03 * e + 0.04 * pitch + 0.03 * range + 0.6 * (pace - 1), 0, 1);
  const engagement = clamp(
    0.55 + 0.03 * e + 0.04 * range - 0.3 * Math.max(0, 1 - pace) - 0.15 * has('flat') - 0.1 * has('mumbled') - 0.1 * has('trailing_off') + 0.05 * Math.min(2, f.emphasis.length),
    0,
    1,
  );
  const jitter = p.pitch_perturbation;
  const usualJitter = f.baseline?.pitch_perturbation ?? null;
  const shaky = jitter !== null && usualJitter !== null && usualJitter > 0 && jitter >= SHAKY_JITTER_RATIO * usualJitter ? 1 : 0;
  const confidence = clamp(
    0.7 + clamp(0.02 * e, -0.1, 0.1) - 0.2 * has('hesitant') - 0.05 * Math.min(3, p.hesitations) - 0.1 * has('trailing_off') - 0.1 * has('mumbled') - 0.1 * shaky,
    0,
    1,
  );
  const laughter = reactions.includes('laughter') ? 1 : 0;
  const cheer = reactions.includes('applause') || reactions.includes('cheering') ? 1 : 0;
  const valence = clamp(0.04 * range + 0.03 * pitch + 0.3 * laughter + 0.15 * cheer - 0.1 * has('flat') - 0.1 * has('trailing_off'), -1, 1);
  const intensity = clamp(Math.hypot(valence, 2 * arousal - 1) / Math.SQRT2, 0, 1);
  return { arousal: r2(arousal), valence: r2(valence), confidence: r2(confidence), engagement: r2(engagement), intensity: r2(intensity) };
}

export const EXCITED_AROUSAL = 0.7;
export const CALM_AROUSAL = 0.35;
export const SAD_AROUSAL = 0.3;
export const SAD_VALENCE = -0.2;
export const WARM_VALENCE = 0.25;
export const UNCERTAIN_CONFIDENCE = 0.45;

/** The emotion of the schema's value set the dimensions point to; the first rule that holds wins. */
export function emotionOf(d: Dimensions, labels: ReadonlyArray<DeliveryLabel>, reactions: ReadonlyArray<string>): Emotion {
  if (reactions.includes('laughter') && d.valence >= 0) return 'amused';
  if (labels.includes('hesitant') && d.confidence < UNCERTAIN_CONFIDENCE) return 'uncertain';
  if (d.arousal >= EXCITED_AROUSAL) return d.valence >= 0 ? 'excited' : 'tense';
  if (d.arousal <= SAD_AROUSAL && d.valence <= SAD_VALENCE) return 'sad';
  if (d.arousal <= CALM_AROUSAL) return 'calm';
  if (d.valence >= WARM_VALENCE) return 'warm';
  return 'neutral';
}

import type { Span } from '../types';
import { harmonicityTrack, meanHarmonicity } from './harmonicity';
import { jitterLocal, shimmerLocal } from './perturbation';
import { pitchTrack, type PitchTrack } from './pitch';
import { periodicPulses } from './pulses';
import { quantile, standardDeviation } from './stats';

/** The signal measures of one transcript line (see README.md for each definition). */
export interface MeasuredProsody {
  /** RMS level of the speech, dBFS (a full-scale square wave is 0 dBFS). */
  energy_db: number | null;
  /** 90th minus 10th percentile of 25 ms frame levels over the speech, dB. */
  energy_range_db: number | null;
  /** Voiced pitch frames over all pitch frames in the speech, 0–1. */
  voiced_ratio: number;
  /** Median F0 of the voiced frames, Hz. */
  pitch_hz: number | null;
  /** 5th-to-95th percentile span of F0, semitones. */
  pitch_range_st: number | null;
  /** Standard deviation of F0 in semitones. */
  pitch_variability_st: number | null;
  /** Jitter (local), a fraction. */
  pitch_perturbation: number | null;
  /** Shimmer (local), a fraction. */
  amplitude_perturbation: number | null;
  /** Mean harmonics-to-noise ratio (cc), dB. */
  hnr_db: number | null;
  /** The line's pitch track; `start` is seconds from the start of the pcm passed in. */
  track: PitchTrack;
}

/** Fewer voiced frames than this (50 ms at 10 ms steps) give no pitch range or variability. */
export const MIN_VOICED_FRAMES_FOR_SPREAD = 5;
/** Fewer level frames than this give no energy range. */
export const MIN_FRAMES_FOR_ENERGY_RANGE = 5;
/** Level frames: 25 ms windows every 10 ms. */
const LEVEL_WINDOW = 0.025;
const LEVEL_STEP = 0.01;
/** Frame levels are floored here so digital silence does not stretch the range to infinity. */
const LEVEL_FLOOR_DB = -100;

/**
 * Measures one line: `span` is the line in seconds within `pcm`; `speech` (optional) the stretches of
 * speech inside it, to which every measure is then limited (frames by their centre, pulses by their time);
 * without it the whole line counts as speech. The line is analysed on its own, as Praat analyses a sound
 * extracted from the recording, so the figures match Praat run on that extract. `pcm` is mono at
 * `sampleRate` (any rate; the service passes 16 kHz) and is only read, never copied.
 */
export function measureProsody(pcm: Float32Array, sampleRate: number, span: Span, speech?: readonly Span[]): MeasuredProsody {
  if (!(sampleRate > 0) || !Number.isFinite(sampleRate)) throw new Error(`sample rate must be a positive number, got ${sampleRate}`);
  if (!Number.isFinite(span.start) || !Number.isFinite(span.end)) throw new Error(`line span must be finite, got ${span.start}–${span.end}`);
  const total = pcm.length / sampleRate;
  const start = Math.min(Math.max(0, span.start), total);
  const end = Math.min(Math.max(start, span.end), total);
  const s0 = Math.round(start * sampleRate);
  const s1 = Math.max(s0, Math.round(end * sampleRate));
  const line = pcm.subarray(s0, s1);
  const offset = s0 / sampleRate; // line time 0 on the pcm's clock
  // Speech stretches on the line's clock, merged and clipped to it.
  const speechSpans = mergedSpeech(
    speech?.map((s) => ({ start: s.start - offset, end: s.end - offset })),
    line.length / sampleRate,
  );
  const inSpeech = membership(speechSpans);

  const local = pitchTrack(line, sampleRate);
  const track: PitchTrack = { ...local, start: local.start + offset };

  // Pitch: voiced frames whose centre is in speech.
  let speechFrames = 0;
  const voiced: number[] = [];
  for (let f = 0; f < local.f0.length; f++) {
    if (!inSpeech(local.start + f * local.timeStep)) continue;
    speechFrames++;
    if (local.f0[f]! > 0) voiced.push(local.f0[f]!);
  }
  voiced.sort((a, b) => a - b);
  const semitones = voiced.map((f) => 12 * Math.log2(f));
  const spread = voiced.length >= MIN_VOICED_FRAMES_FOR_SPREAD;

  // Perturbation: pulses in speech (periods across a pause exceed the 20 ms longest period anyway).
  const pulses = periodicPulses(line, sampleRate, local).filter((t) => inSpeech(t));
  const hnr = meanHarmonicity(harmonicityTrack(line, sampleRate), inSpeech);

  return {
    ...energy(line, sampleRate, speechSpans, inSpeech),
    voiced_ratio: speechFrames > 0 ? voiced.length / speechFrames : 0,
    pitch_hz: voiced.length > 0 ? quantile(voiced, 0.5) : null,
    pitch_range_st: spread ? 12 * Math.log2(quantile(voiced, 0.95) / quantile(voiced, 0.05)) : null,
    pitch_variability_st: spread ? standardDeviation(semitones) : null,
    pitch_perturbation: jitterLocal(pulses),
    amplitude_perturbation: shimmerLocal(pulses, line, sampleRate),
    hnr_db: hnr,
    track,
  };
}

/** Speech stretches clipped to the line and merged; the whole line when none were given. */
function mergedSpeech(speech: Span[] | undefined, duration: number): Span[] {
  if (!speech) return duration > 0 ? [{ start: 0, end: duration }] : [];
  const spans = speech
    .map((s) => ({ start: Math.max(0, s.start), end: Math.min(duration, s.end) }))
    .filter((s) => s.end > s.start)
    .sort((a, b) => a.start - b.start);
  const merged: Span[] = [];
  for (const s of spans) {
    const last = merged[merged.length - 1];
    if (last && s.start <= last.end) last.end = Math.max(last.end, s.end);
    else merged.push({ ...s });
  }
  return merged;
}

/** Whether time t lies in one of the sorted, disjoint spans. */
function membership(spans: Span[]): (t: number) => boolean {
  return (t) => {
    let lo = 0;
    let hi = spans.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (spans[mid]!.end < t) lo = mid + 1;
      else hi = mid;
    }
    const s = spans[lo];
    return s !== undefined && t >= s.start && t <= s.end;
  };
}

/** Level of the speech (RMS over its samples) and the spread of its 25 ms frame levels. */
function energy(
  line: Float32Array,
  sampleRate: number,
  speech: Span[],
  inSpeech: (t: number) => boolean,
): Pick<MeasuredProsody, 'energy_db' | 'energy_range_db'> {
  let sum = 0;
  let count = 0;
  for (const s of speech) {
    // Samples whose centre, (i + 0.5) / rate, lies in the stretch.
    const from = Math.max(0, Math.ceil(s.start * sampleRate - 0.5));
    const to = Math.min(line.length - 1, Math.floor(s.end * sampleRate - 0.5));
    for (let i = from; i <= to; i++) sum += line[i]! * line[i]!;
    count += Math.max(0, to - from + 1);
  }
  const energyDb = count > 0 && sum > 0 ? 10 * Math.log10(sum / count) : null;

  const window = Math.max(1, Math.round(LEVEL_WINDOW * sampleRate));
  const hop = Math.max(1, Math.round(LEVEL_STEP * sampleRate));
  const levels: number[] = [];
  for (let s = 0; s + window <= line.length; s += hop) {
    if (!inSpeech((s + window / 2) / sampleRate)) continue;
    let frameSum = 0;
    for (let i = s; i < s + window; i++) frameSum += line[i]! * line[i]!;
    levels.push(Math.max(LEVEL_FLOOR_DB, 10 * Math.log10(frameSum / window)));
  }
  levels.sort((a, b) => a - b);
  const range = energyDb !== null && levels.length >= MIN_FRAMES_FOR_ENERGY_RANGE ? quantile(levels, 0.9) - quantile(levels, 0.1) : null;
  return { energy_db: energyDb, energy_range_db: range };
}

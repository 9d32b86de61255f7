import type { Span } from '../types';
import { type ClipLevels, clipLevels } from './clipping';
import { BINS, FRAME, createFrameSpectrum, powerDb } from './frames';
import { complement, sampleRange } from './spans';

/**
 * The recording's background: a noise power spectrum from what lies between the speech (the VAD's spans),
 * overall and per pause, so each line can be judged against the noise around it; and the levels at which
 * the recording clips, if it does.
 */

export interface NoiseGap extends Span {
  /** Power per FFT bin (frames.ts scaling), the mean over the gap's frames without transients. */
  spectrum: Float64Array;
  level_db: number;
  /** Frames that went into the spectrum (20 ms each). */
  frames: number;
}

export interface NoiseProfile {
  sampleRate: number;
  /** Broadband noise floor of the recording (0–8 kHz, DC excluded), dBFS; null for an empty recording. */
  noise_db: number | null;
  /** The recording's noise power spectrum; null for an empty recording. */
  spectrum: Float64Array | null;
  /** `non_speech`: measured between speech; `quietest_frames`: too little non-speech, so the quietest 10% of frames. */
  method: 'non_speech' | 'quietest_frames' | 'none';
  nonSpeechSeconds: number;
  /** Non-speech stretches of at least MIN_GAP seconds (long ones in pieces of ≤ 5 s), in time order. */
  gaps: NoiseGap[];
  /** Where the recording clips, per side (null: that side does not clip); see clipping.ts. */
  clip: ClipLevels;
}

/** Speech spans are widened by this much before taking what lies between (VAD edges, breaths). */
const SPEECH_MARGIN = 0.05;
const MIN_GAP = 0.1;
/** Long pauses are cut into pieces of at most 5 s, so a noise that changes within one is placed in time. */
const MAX_GAP_SECONDS = 5;
/** At most this many frames per piece (every other 20 ms frame of 5 s). */
const MAX_GAP_FRAMES = 125;
/** Frames louder than the gap's median by more than this are transients (clicks, breaths), not the floor. */
const TRANSIENT_DB = 3;
/** Below this much measured non-speech (0.3 s) the floor comes from the quietest frames instead. */
const MIN_NOISE_FRAMES = 15;
const FALLBACK_FRAMES = 3000;
const QUIETEST_SHARE = 0.1;

export function noiseProfile(pcm: Float32Array, sampleRate: number, speech: Span[]): NoiseProfile {
  const clip = clipLevels(pcm);
  const duration = pcm.length / sampleRate;
  const nonSpeech = complement(speech, { start: 0, end: duration }, SPEECH_MARGIN);
  const spectrumOf = createFrameSpectrum();
  const gaps: NoiseGap[] = [];
  let nonSpeechSeconds = 0;
  for (const whole of nonSpeech) {
    nonSpeechSeconds += whole.end - whole.start;
    if (whole.end - whole.start < MIN_GAP) continue;
    const pieces = Math.ceil((whole.end - whole.start) / MAX_GAP_SECONDS);
    for (let p = 0; p < pieces; p++) {
      const span = {
        start: whole.start + ((whole.end - whole.start) * p) / pieces,
        end: whole.start + ((whole.end - whole.start) * (p + 1)) / pieces,
      };
      const { from, to } = sampleRange(span, sampleRate, pcm.length);
      const available = Math.floor((to - from) / FRAME);
      if (available < 1) continue;
      const count = Math.min(available, MAX_GAP_FRAMES);
      const starts = Array.from(
        { length: count },
        (_, i) => from + Math.floor((i * available) / count) * FRAME,
      );
      const spectrum = steadyMeanSpectrum(pcm, starts, spectrumOf);
      gaps.push({
        ...span,
        spectrum: spectrum.mean,
        level_db: powerDb(sum(spectrum.mean)),
        frames: spectrum.frames,
      });
    }
  }
  const measuredFrames = gaps.reduce((s, g) => s + g.frames, 0);
  if (measuredFrames >= MIN_NOISE_FRAMES) {
    const spectrum = weightedMedianSpectrum(gaps);
    return {
      sampleRate,
      noise_db: powerDb(sum(spectrum)),
      spectrum,
      method: 'non_speech',
      nonSpeechSeconds,
      gaps,
      clip,
    };
  }
  const total = Math.floor(pcm.length / FRAME);
  if (total < 1)
    return { sampleRate, noise_db: null, spectrum: null, method: 'none', nonSpeechSeconds, gaps, clip };
  const spectrum = quietestSpectrum(pcm, total, spectrumOf);
  return {
    sampleRate,
    noise_db: powerDb(sum(spectrum)),
    spectrum,
    method: 'quietest_frames',
    nonSpeechSeconds,
    gaps,
    clip,
  };
}

/**
 * The noise spectrum around a stretch: the gaps within `radius` seconds of it when they hold at least
 * 0.6 s, otherwise the recording's. Noise often changes over a recording (a fan, traffic, another room).
 */
export function localNoise(
  profile: NoiseProfile,
  span: Span,
  radius = 15,
): { spectrum: Float64Array; level_db: number } | null {
  if (!profile.spectrum) return null;
  const near = profile.gaps.filter((g) => g.end > span.start - radius && g.start < span.end + radius);
  if (near.reduce((s, g) => s + g.frames, 0) >= 30) {
    const spectrum = weightedMedianSpectrum(near);
    return { spectrum, level_db: powerDb(sum(spectrum)) };
  }
  return { spectrum: profile.spectrum, level_db: profile.noise_db ?? powerDb(sum(profile.spectrum)) };
}

function sum(x: Float64Array): number {
  let s = 0;
  for (let k = 0; k < x.length; k++) s += x[k]!;
  return s;
}

function steadyMeanSpectrum(
  pcm: Float32Array,
  starts: number[],
  spectrumOf: ReturnType<typeof createFrameSpectrum>,
): { mean: Float64Array; frames: number } {
  const spectra = starts.map((start) => Float64Array.from(spectrumOf(pcm, start, new Float64Array(BINS))));
  const levels = spectra.map((s) => powerDb(sum(s)));
  const median = [...levels].sort((a, b) => a - b)[Math.floor(levels.length / 2)]!;
  const mean = new Float64Array(BINS);
  let frames = 0;
  spectra.forEach((s, i) => {
    if (levels[i]! > median + TRANSIENT_DB) return;
    for (let k = 0; k < BINS; k++) mean[k]! += s[k]!;
    frames++;
  });
  for (let k = 0; k < BINS; k++) mean[k]! /= frames;
  return { mean, frames };
}

/** Per-bin median over gaps weighted by their frames: one loud pause cannot raise the floor. */
function weightedMedianSpectrum(gaps: NoiseGap[]): Float64Array {
  const out = new Float64Array(BINS);
  const total = gaps.reduce((s, g) => s + g.frames, 0);
  const order = gaps.map((_, i) => i);
  for (let k = 1; k < BINS; k++) {
    order.sort((a, b) => gaps[a]!.spectrum[k]! - gaps[b]!.spectrum[k]!);
    let acc = 0;
    for (const i of order) {
      acc += gaps[i]!.frames;
      if (acc >= total / 2) {
        out[k] = gaps[i]!.spectrum[k]!;
        break;
      }
    }
  }
  return out;
}

function quietestSpectrum(
  pcm: Float32Array,
  total: number,
  spectrumOf: ReturnType<typeof createFrameSpectrum>,
): Float64Array {
  const count = Math.min(total, FALLBACK_FRAMES);
  const frames = Array.from({ length: count }, (_, i) => {
    const spectrum = Float64Array.from(
      spectrumOf(pcm, Math.floor((i * total) / count) * FRAME, new Float64Array(BINS)),
    );
    return { spectrum, level: sum(spectrum) };
  }).sort((a, b) => a.level - b.level);
  const keep = frames.slice(0, Math.max(1, Math.round(count * QUIETEST_SHARE)));
  const mean = new Float64Array(BINS);
  for (const f of keep) for (let k = 0; k < BINS; k++) mean[k]! += f.spectrum[k]! / keep.length;
  return mean;
}

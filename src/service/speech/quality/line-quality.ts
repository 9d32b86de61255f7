import { onMosScale } from './mos-scale';
import type { Mos, Quality, QualityIssue } from '../../../shared/schemas/analysis';
import type { Span } from '../types';
import { countClipped } from './clipping';
import { BINS, FRAME, HOP, bandPower, createFrameSpectrum, frameCountFor, powerDb } from './frames';
import { type HumReading, detectHum } from './hum';
import { lowFrequencyReading } from './low-frequency';
import { type NoiseProfile, localNoise } from './noise-profile';
import { decayRate } from './reverberation';
import { clip, round, sampleRange } from './spans';

/** Every measured field of `Quality` (all but the perceived `mos` and the `score` built on it). */
/** Every `Quality` field read from the signal (the score and the DNSMOS scores are added by the analysis). */
export type MeasuredQuality = Omit<Quality, 'mos' | 'score' | 'sources'>;

/** What one line measures, with the intermediate values the recording-level conditions compare across lines. */
export interface LineMeasures {
  span: Span;
  /** Speech power over noise power in the line's speech, dB (noise subtracted per FFT bin first); null without speech. */
  snr_db: number | null;
  /** The noise floor the line is judged against (the pauses within 15 s, else the recording's), dBFS. */
  noise_db: number | null;
  /** Mean power of the line's speech frames, dBFS (noise included). */
  speech_db: number | null;
  clipping_ratio: number;
  clipped_samples: number;
  low_frequency_share_db: number | null;
  wind_index: number;
  /** Start times (recording clock) of plosive pops. */
  plosive_times: number[];
  /** Blind decay rate of the line's speech offsets, dB/s (larger = drier); null when unmeasurable. */
  decay_rate_db_s: number | null;
  mic: 'near' | 'medium' | 'far';
  /** 4–8 kHz power relative to 0.3–4 kHz over the line's speech, dB (brightness; falls off-axis). */
  high_frequency_share_db: number | null;
  hum: HumReading | null;
}

/**
 * Thresholds. Each was chosen on the "fit" half of the constructed test sets (README: thresholds) and
 * checked on the other half.
 */
export const THRESHOLDS = {
  /** `noise` issue below this SNR; severity reaches 1 at 0 dB. */
  noiseSnrDb: 20,
  /** `low_level` issue below this speech level; severity reaches 1 20 dB lower. */
  lowLevelDb: -40,
  /** `low_frequency` issue above this 20–80 Hz share; severity reaches 1 at 0 dB. */
  lowFrequencyShareDb: -8,
  /** `wind` issue at or above this wind index. */
  windIndex: 0.1,
  /** Decay rates (dB/s): at or above `near` the mic is near; below `far` it is far (and the line reverberant). */
  decayNear: 120,
  decayFar: 100,
  /** Decay rates are not judged below this SNR (the mic then reads `near`, no reverb issue). */
  decayMinSnrDb: 8,
  /** `hum` is reported from 50 dB below the speech level; severity from 0.1 there to 1 at −20 dB. */
  humLowDb: -50,
  humHighDb: -20,
} as const;

const SPEECH_BAND = { lo: 300, hi: 8000 };
/** Noise-power floor in SNR (−120 dBFS) so digital silence gives a finite SNR. */
const NOISE_FLOOR = 1e-12;
const SNR_LIMITS = { min: -20, max: 100 };

/** The line's frames (first sample, count) and which of them are speech (their centre lies in `speech`). */
function speechFrameMask(
  length: number,
  sampleRate: number,
  line: Span,
  speech: Span[],
): { from: number; frames: number; isSpeech: Uint8Array } {
  const { from, to } = sampleRange(line, sampleRate, length);
  const inside = clip(speech, line).sort((a, b) => a.start - b.start);
  const frames = frameCountFor(to - from);
  const isSpeech = new Uint8Array(frames);
  let cursor = 0;
  for (let t = 0; t < frames; t++) {
    const centre = (from + t * HOP + FRAME / 2) / sampleRate;
    while (cursor < inside.length && inside[cursor]!.end <= centre) cursor++;
    const s = inside[cursor];
    isSpeech[t] = s && s.start <= centre ? 1 : 0;
  }
  return { from, frames, isSpeech };
}

/** Mean power spectrum of the line's speech frames; null without any. */
function meanSpeechSpectrum(pcm: Float32Array, sampleRate: number, line: Span, speech: Span[]): Float64Array | null {
  const { from, frames: count, isSpeech } = speechFrameMask(pcm.length, sampleRate, line, speech);
  const spectrumOf = createFrameSpectrum();
  const frame = new Float64Array(BINS);
  const sum = new Float64Array(BINS);
  let frames = 0;
  for (let t = 0; t < count; t++) {
    if (!isSpeech[t]) continue;
    spectrumOf(pcm, from + t * HOP, frame);
    for (let k = 0; k < BINS; k++) sum[k]! += frame[k]!;
    frames++;
  }
  if (frames === 0) return null;
  for (let k = 0; k < BINS; k++) sum[k]! /= frames;
  return sum;
}

/** Speech level and SNR from the speech's mean spectrum and the noise's (noise subtracted per bin first). */
function speechOverNoise(
  speech: Float64Array | null,
  noise: Float64Array | null,
): { snr_db: number | null; speech_db: number | null } {
  if (!speech) return { snr_db: null, speech_db: null };
  let total = 0;
  let signal = 0;
  let noisePower = 0;
  for (let k = 1; k < BINS; k++) {
    const n = noise ? noise[k]! : 0;
    total += speech[k]!;
    signal += Math.max(0, speech[k]! - n);
    noisePower += n;
  }
  const snr_db = noise
    ? Math.min(SNR_LIMITS.max, Math.max(SNR_LIMITS.min, powerDb(signal) - powerDb(Math.max(noisePower, NOISE_FLOOR))))
    : null;
  return { snr_db, speech_db: powerDb(total) };
}

/** The line's SNR as `measureLine` reads it, without its other measures (a cheap check before recognition). */
export function speechSnrDb(pcm: Float32Array, sampleRate: number, line: Span, speech: Span[], noise: NoiseProfile): number | null {
  return speechOverNoise(meanSpeechSpectrum(pcm, sampleRate, line, speech), localNoise(noise, line)?.spectrum ?? null).snr_db;
}

export function measureLine(
  pcm: Float32Array,
  sampleRate: number,
  line: Span,
  speech: Span[],
  noise: NoiseProfile,
): LineMeasures {
  const { from, to } = sampleRange(line, sampleRate, pcm.length);
  const { frames, isSpeech } = speechFrameMask(pcm.length, sampleRate, line, speech);

  const spectrumOf = createFrameSpectrum();
  const frame = new Float64Array(BINS);
  const speechSpectrum = new Float64Array(BINS);
  const band = new Float64Array(frames);
  let speechFrames = 0;
  let hf = 0;
  let mid = 0;
  for (let t = 0; t < frames; t++) {
    spectrumOf(pcm, from + t * HOP, frame);
    band[t] = bandPower(frame, sampleRate, SPEECH_BAND.lo, SPEECH_BAND.hi);
    if (!isSpeech[t]) continue;
    for (let k = 0; k < BINS; k++) speechSpectrum[k]! += frame[k]!;
    hf += bandPower(frame, sampleRate, 4000, 8000);
    mid += bandPower(frame, sampleRate, 300, 4000);
    speechFrames++;
  }
  if (speechFrames > 0) for (let k = 0; k < BINS; k++) speechSpectrum[k]! /= speechFrames;

  const local = localNoise(noise, line);
  const { snr_db, speech_db } = speechOverNoise(speechFrames > 0 ? speechSpectrum : null, local?.spectrum ?? null);

  const clipped = countClipped(pcm, from, to, noise.clip);
  const low = lowFrequencyReading(pcm, sampleRate, from, to, (t) => isSpeech[t] === 1);
  const noiseBand = local ? bandPower(local.spectrum, sampleRate, SPEECH_BAND.lo, SPEECH_BAND.hi) : 0;
  // Below 8 dB SNR too few offsets clear the noise to tell a room from noise: not judged.
  const decay =
    speechFrames > 0 && snr_db !== null && snr_db >= THRESHOLDS.decayMinSnrDb
      ? decayRate(band, noiseBand, sampleRate)
      : null;
  const mic =
    decay === null || decay >= THRESHOLDS.decayNear ? 'near' : decay < THRESHOLDS.decayFar ? 'far' : 'medium';

  return {
    span: { start: line.start, end: line.end },
    snr_db,
    noise_db: local ? local.level_db : null,
    speech_db,
    clipping_ratio: to > from ? clipped / (to - from) : 0,
    clipped_samples: clipped,
    low_frequency_share_db: low.share_db,
    wind_index: low.wind_index,
    plosive_times: low.plosives,
    decay_rate_db_s: decay,
    mic,
    high_frequency_share_db: speechFrames > 0 && mid > 0 ? powerDb(hf) - powerDb(mid) : null,
    hum: to - from >= 1.1 * sampleRate ? detectHum(pcm, sampleRate, from, to) : null,
  };
}

const clamp01 = (x: number): number => Math.min(1, Math.max(0, x));
/** Severity on a linear ramp from `at` (→ `min`) to `full` (→ 1). */
const ramp = (value: number, at: number, full: number, min = 0.1): number =>
  clamp01(min + ((1 - min) * (value - at)) / (full - at));

/** The issues a line's measures raise; each names its measure, value and threshold. */
export function lineIssues(m: LineMeasures): QualityIssue[] {
  const t = THRESHOLDS;
  const issues: QualityIssue[] = [];
  const add = (type: string, severity: number, evidence: string): void => {
    issues.push({ type, severity: round(severity, 2), evidence, source: 'measured' });
  };
  if (m.clipped_samples > 0) {
    // 0.001% of samples → 0.05, 0.01% → 0.25, 0.1% → 0.5, 1% → 0.75, 10% → 1.
    add(
      'clipping',
      clamp01(Math.max(0.05, (Math.log10(m.clipping_ratio) + 5) / 4)),
      `clipping ratio ${fmtPercent(m.clipping_ratio)} of samples at the clip level (${m.clipped_samples} samples; threshold: any)`,
    );
  }
  if (m.snr_db !== null && m.snr_db < t.noiseSnrDb) {
    add(
      'noise',
      ramp(t.noiseSnrDb - m.snr_db, 0, t.noiseSnrDb),
      `SNR ${m.snr_db.toFixed(1)} dB (threshold ${t.noiseSnrDb} dB; noise floor ${m.noise_db?.toFixed(1)} dBFS)`,
    );
  }
  if (m.speech_db !== null && m.speech_db < t.lowLevelDb) {
    add(
      'low_level',
      ramp(t.lowLevelDb - m.speech_db, 0, 20),
      `speech level ${m.speech_db.toFixed(1)} dBFS (threshold ${t.lowLevelDb} dBFS)`,
    );
  }
  if (m.low_frequency_share_db !== null && m.low_frequency_share_db > t.lowFrequencyShareDb) {
    add(
      'low_frequency',
      ramp(m.low_frequency_share_db, t.lowFrequencyShareDb, 0),
      `20–80 Hz share ${m.low_frequency_share_db.toFixed(1)} dB of the speech power (threshold ${t.lowFrequencyShareDb} dB)`,
    );
  }
  if (m.wind_index >= t.windIndex) {
    add(
      'wind',
      ramp(m.wind_index, t.windIndex, 0.6),
      `wind index ${m.wind_index.toFixed(2)} (share of the line in gusty low-frequency noise; threshold ${t.windIndex})`,
    );
  }
  if (m.plosive_times.length > 0) {
    add(
      'plosive',
      clamp01(0.2 + 0.2 * m.plosive_times.length),
      `${m.plosive_times.length} plosive pop(s) (20–80 Hz bursts ≤ 100 ms, ≥ 6 dB above the mean speech power; threshold: any) at ${m.plosive_times.map((s) => `${s.toFixed(2)} s`).join(', ')}`,
    );
  }
  if (m.decay_rate_db_s !== null && m.decay_rate_db_s < t.decayFar) {
    add(
      'reverb',
      ramp(t.decayFar - m.decay_rate_db_s, 0, t.decayFar - 40),
      `decay rate ${m.decay_rate_db_s.toFixed(0)} dB/s at speech offsets (reverberant below ${t.decayFar} dB/s; mic far)`,
    );
  }
  // Hum is reported when it stands out of its neighbourhood and is no more than 50 dB below the speech.
  const humRelative = m.hum && m.speech_db !== null ? m.hum.level_db - m.speech_db : null;
  if (m.hum && (humRelative === null || humRelative >= t.humLowDb)) {
    add(
      'hum',
      humRelative === null ? 0.5 : ramp(humRelative, t.humLowDb, t.humHighDb),
      `${m.hum.mains_hz} Hz mains hum at ${m.hum.level_db.toFixed(1)} dBFS${humRelative === null ? '' : ` (${(-humRelative).toFixed(1)} dB below the speech; reported from ${-t.humLowDb} dB below)`}; lines ${m.hum.lines.map((l) => `${l.hz.toFixed(1)} Hz`).join(', ')} stand ≥ 12 dB above their neighbourhood`,
    );
  }
  return issues;
}

function fmtPercent(ratio: number): string {
  return `${(ratio * 100).toPrecision(2)}%`;
}

/** The measured `Quality` fields of a line, as the API shows them. */
export function toMeasuredQuality(m: LineMeasures): MeasuredQuality {
  const r = (v: number | null, d = 1): number | null => (v === null ? null : round(v, d));
  return {
    snr_db: r(m.snr_db),
    noise_db: r(m.noise_db),
    clipping_ratio: m.clipping_ratio,
    low_frequency_share_db: r(m.low_frequency_share_db),
    wind_index: round(m.wind_index, 2),
    plosives: m.plosive_times.length,
    mic: m.mic,
    issues: lineIssues(m),
  };
}

/** `measureLine` then `toMeasuredQuality`: every measured field of a line's `Quality`. */
export function measureLineQuality(
  pcm: Float32Array,
  sampleRate: number,
  line: Span,
  speech: Span[],
  noise: NoiseProfile,
): MeasuredQuality {
  return toMeasuredQuality(measureLine(pcm, sampleRate, line, speech, noise));
}

/**
 * The line's quality, 0–1. With DNSMOS: its overall (OVRL, 1–5) mapped linearly so 1 → 0 and 4 → 1
 * (4 is about the best DNSMOS gives clean studio speech; clean read speech scores 3.2–3.6 → 0.73–0.87).
 * Without it: the same mapping of an OVRL estimated from the measures (see `estimatedOvrl`).
 */
export function qualityScore(measured: Pick<MeasuredQuality, 'snr_db' | 'issues'>, mos: Mos | null): number {
  const ovrl = onMosScale(mos ? mos.ovrl : estimatedOvrl(measured));
  return round(clamp01((ovrl - 1) / 3), 3);
}

/**
 * An OVRL a listener model would likely give, from the measures alone: a logistic in SNR fitted to DNSMOS
 * OVRL of clean speech with white noise added (README: score), lowered by each issue's severity.
 */
export function estimatedOvrl(measured: Pick<MeasuredQuality, 'snr_db' | 'issues'>): number {
  const snr = measured.snr_db ?? 40;
  let ovrl =
    OVRL_FIT.floor +
    (OVRL_FIT.ceiling - OVRL_FIT.floor) / (1 + Math.exp(-(snr - OVRL_FIT.midDb) / OVRL_FIT.widthDb));
  for (const issue of measured.issues) {
    if (issue.type === 'noise') continue; // already in the SNR term
    ovrl -= (ISSUE_WEIGHT[issue.type] ?? 0.3) * issue.severity;
  }
  return onMosScale(ovrl);
}

/** Fitted (least squares) on the fit half: 90 lines = 15 clips × clean and 30/20/10/5/0 dB white noise. */
const OVRL_FIT = { floor: 0.59, ceiling: 3.77, midDb: 11.1, widthDb: 17.7 };
/**
 * OVRL lost per unit of severity. reverb and clipping: the median on the fit half (classroom reverberation,
 * clipping at 3× the peak) of (logistic − DNSMOS OVRL) / severity: 1.49 and 0.24 (check half: 1.58, 0.23).
 * The others are judgement, not fitted (no DNSMOS data for them here).
 */
const ISSUE_WEIGHT: Record<string, number> = {
  reverb: 1.5,
  clipping: 0.25,
  hum: 0.5,
  wind: 0.8,
  low_frequency: 0.3,
  plosive: 0.2,
  low_level: 0.3,
};

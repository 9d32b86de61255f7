import { analysePeriodicity } from './periodicity';

/** Harmonics-to-noise ratio per frame, dB; `SILENT_DB` where the frame is silent or has no periodicity. */
export interface HarmonicityTrack {
  timeStep: number;
  /** Time of frame 0, s from the start of the pcm passed in. */
  start: number;
  db: Float32Array;
}

export interface HarmonicityOptions {
  /** Seconds, default 0.01. */
  timeStep?: number;
  /** Lowest pitch, Hz, default 75: sets the window (one period per window by default). */
  floor?: number;
  /** Frames whose local peak is below this share of the global peak count as silent; default 0.1. */
  silenceThreshold?: number;
  /** Periods per window, default 1. */
  periodsPerWindow?: number;
}

/** Praat's marker for a silent or aperiodic frame (excluded from the mean). */
export const SILENT_DB = -200;

/**
 * HNR by Praat's cross-correlation method ("To Harmonicity (cc)", defaults 0.01 s, 75 Hz, 0.1, 1 period):
 * per frame the strongest peak r of the normalised forward cross-correlation over all lags up to one
 * window (no octave or path costs), HNR = 10·log10(r / (1 − r)). Frames quiet enough that an unvoiced
 * reading beats r (below 0.2 of the global peak, shading to certain below 0.1) are `SILENT_DB`.
 */
export function harmonicityTrack(pcm: Float32Array, sampleRate: number, options: HarmonicityOptions = {}): HarmonicityTrack {
  const timeStep = options.timeStep ?? 0.01;
  const floor = options.floor ?? 75;
  const silenceThreshold = options.silenceThreshold ?? 0.1;
  const c = analysePeriodicity(pcm, sampleRate, {
    method: 'cc',
    floor,
    ceiling: 0.5 * sampleRate,
    periodsPerWindow: options.periodsPerWindow ?? 1,
    timeStep,
    maxCandidates: 15,
    voicingThreshold: 0,
    octaveCost: 0,
    keep: 'strongest',
    // An unvoiced reading of 2 − intensity / threshold ≥ 1 beats any correlation (ties go unvoiced).
    unvoicedAtOrBelow: silenceThreshold,
  });
  const db = new Float32Array(c.frames).fill(SILENT_DB);
  for (let f = 0; f < c.frames; f++) {
    if (c.count[f]! < 2) continue;
    const freq = c.frequency[f * c.slots + 1]!;
    const r = c.strength[f * c.slots + 1]!;
    // With no path costs the unvoiced reading wins when the frame is quiet enough to outweigh r.
    const unvoiced = silenceThreshold <= 0 ? 0 : Math.max(0, 2 - c.intensity[f]! / silenceThreshold);
    if (!(freq > 0 && freq < c.ceiling) || !(r > unvoiced)) continue;
    db[f] = r <= 1e-15 ? -150 : r > 1 - 1e-15 ? 150 : 10 * Math.log10(r / (1 - r));
  }
  return { timeStep, start: c.start, db };
}

/**
 * Mean HNR over the sounding frames (not `SILENT_DB`), as Praat's "Get mean"; `include(t)` optionally
 * limits it to frames whose centre time it accepts. Null when no frame counts.
 */
export function meanHarmonicity(track: HarmonicityTrack, include?: (t: number) => boolean): number | null {
  let sum = 0;
  let count = 0;
  for (let f = 0; f < track.db.length; f++) {
    const v = track.db[f]!;
    if (v === SILENT_DB) continue;
    if (include && !include(track.start + f * track.timeStep)) continue;
    sum += v;
    count++;
  }
  return count > 0 ? sum / count : null;
}

import type { PitchTrack } from '../../speech/prosody/pitch';

/** A pitch shift (semitones) from a time on, seconds from the start of the warped reading. */
export interface ShiftPoint {
  seconds: number;
  semitones: number;
}

export interface ContourOptions {
  /** Spacing of the points, seconds. */
  step?: number;
  /** Gaussian smoothing of the difference curve (its standard deviation, seconds): about a syllable. */
  smoothing?: number;
  /**
   * Weight of the median shift as a prior (in frames of evidence): where neither reading is voiced nearby the
   * curve falls back to it, and a lone frame moves it only part of the way.
   */
  prior?: number;
  /** How far (semitones) one frame's difference may stray from the median shift: a tracker's octave jump counts as no more. */
  spread?: number;
  /** Bounds of the whole shift. */
  limit?: number;
}

const DEFAULTS = { step: 0.01, smoothing: 0.05, prior: 2, spread: 6, limit: 12 } as const;

const semitones = (hz: number) => 12 * Math.log2(hz);

/**
 * The pitch shift that moves a reading's contour onto the original's, over time: at each frame where both are
 * voiced, the difference of their pitches in semitones (the reading's frames placed by `readingTime`, the
 * original's by `originalTime`, both onto the warped reading's timeline), smoothed over about a syllable and
 * pulled toward `median` (the shift between the two median pitches) where there is little evidence. Points every
 * `step` seconds from 0 to `length`.
 */
export function contourShift(
  reading: PitchTrack,
  readingTime: (seconds: number) => number,
  original: PitchTrack,
  originalTime: (seconds: number) => number,
  median: number,
  length: number,
  options: ContourOptions = {},
): ShiftPoint[] {
  const o = { ...DEFAULTS, ...options };
  const clamp = (x: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, x));
  // Each track as (time on the warped timeline, semitones), voiced frames only.
  const voiced = (track: PitchTrack, time: (s: number) => number) => {
    const out: Array<{ t: number; st: number }> = [];
    track.f0.forEach((hz, i) => {
      if (hz > 0) out.push({ t: time(track.start + i * track.timeStep), st: semitones(hz) });
    });
    return out;
  };
  const ours = voiced(reading, readingTime);
  const theirs = voiced(original, originalTime);
  // The original's pitch at a time: its nearest voiced frame within half a frame step either way, else none.
  const tolerance = Math.max(reading.timeStep, original.timeStep);
  let j = 0;
  const differences: Array<{ t: number; d: number }> = [];
  for (const { t, st } of ours) {
    while (j + 1 < theirs.length && Math.abs(theirs[j + 1]!.t - t) <= Math.abs(theirs[j]!.t - t)) j++;
    const near = theirs[j];
    if (near && Math.abs(near.t - t) <= tolerance) differences.push({ t, d: clamp(near.st - st, median - o.spread, median + o.spread) });
  }
  const points: ShiftPoint[] = [];
  const reach = 3 * o.smoothing;
  let from = 0;
  for (let t = 0; t <= length + 1e-9; t += o.step) {
    while (from < differences.length && differences[from]!.t < t - reach) from++;
    let sum = o.prior * median;
    let weight = o.prior;
    for (let k = from; k < differences.length && differences[k]!.t <= t + reach; k++) {
      const w = Math.exp(-0.5 * ((differences[k]!.t - t) / o.smoothing) ** 2);
      sum += w * differences[k]!.d;
      weight += w;
    }
    points.push({ seconds: t, semitones: clamp(sum / weight, -o.limit, o.limit) });
  }
  return points;
}

/** Pearson correlation of two pitch contours (semitones) over the frames both are voiced; NaN with fewer than 3. */
export function contourCorrelation(a: PitchTrack, aTime: (s: number) => number, b: PitchTrack, bTime: (s: number) => number): number {
  const bs = [...b.f0].flatMap((hz, i) => (hz > 0 ? [{ t: bTime(b.start + i * b.timeStep), st: semitones(hz) }] : []));
  const tolerance = Math.max(a.timeStep, b.timeStep);
  const xs: number[] = [];
  const ys: number[] = [];
  let j = 0;
  a.f0.forEach((hz, i) => {
    if (!(hz > 0)) return;
    const t = aTime(a.start + i * a.timeStep);
    while (j + 1 < bs.length && Math.abs(bs[j + 1]!.t - t) <= Math.abs(bs[j]!.t - t)) j++;
    if (bs[j] && Math.abs(bs[j]!.t - t) <= tolerance) {
      xs.push(semitones(hz));
      ys.push(bs[j]!.st);
    }
  });
  if (xs.length < 3) return NaN;
  const mx = xs.reduce((s, x) => s + x, 0) / xs.length;
  const my = ys.reduce((s, y) => s + y, 0) / ys.length;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < xs.length; i++) {
    sxy += (xs[i]! - mx) * (ys[i]! - my);
    sxx += (xs[i]! - mx) ** 2;
    syy += (ys[i]! - my) ** 2;
  }
  return sxx > 0 && syy > 0 ? sxy / Math.sqrt(sxx * syy) : NaN;
}

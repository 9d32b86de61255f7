import { createAutocorrelation, createCrossCorrelation } from '../../dsp/correlation';
import { hannWindow } from '../../dsp/window';
import { frameLayout, sampleAtOrBefore } from './frames';
import { interpolateSinc, refineMaximum } from './peak';

/**
 * The frame-by-frame periodicity analysis behind Praat's pitch and harmonicity measures (Boersma 1993,
 * "Accurate short-term analysis of the fundamental frequency and the harmonics-to-noise ratio of a sampled
 * sound"). Each frame yields candidates: "unvoiced" plus the strongest peaks of a normalised correlation
 * function, each a frequency (1 / lag) and a strength (the correlation at that lag, 0–1).
 *
 * - `ac`: the autocorrelation of a Hann-windowed frame of `periodsPerWindow` longest periods, divided by
 *   the window's own autocorrelation (which removes the window's taper from the estimate), via FFT.
 * - `cc`: the forward cross-correlation of a one-window stretch with the same stretch shifted by each
 *   lag, each normalised by the energies of both stretches (no window).
 *
 * Peaks are located by parabolic interpolation, their strength read by sinc interpolation, then both
 * refined by maximising the sinc-interpolated correlation (Brent's method).
 */

export type CorrelationMethod = 'ac' | 'cc';

export interface PeriodicityParams {
  method: CorrelationMethod;
  /** Lowest frequency sought, Hz: sets the window (`periodsPerWindow` / floor). */
  floor: number;
  /** Highest frequency, Hz (clipped to the Nyquist frequency). */
  ceiling: number;
  periodsPerWindow: number;
  timeStep: number;
  /** Candidates kept per frame, the unvoiced one included. */
  maxCandidates: number;
  /** Peaks below half this correlation are not candidates. */
  voicingThreshold: number;
  /** Favours higher frequencies when choosing which peaks to keep (per octave below the floor). */
  octaveCost: number;
  /**
   * `all`: refine every kept peak (pitch). `strongest`: keep only the strongest refined peak; peaks whose
   * parabolic height is more than `strongestMargin` below the best refined one so far are not refined, nor
   * ranked by anything costlier than that parabola
   * (harmonicity, where only the strongest counts; refining all costs 2.5 times as much and changed 1 of
   * 82 398 frames of the benchmark clips). Default margin 0.2.
   */
  keep: 'all' | 'strongest';
  strongestMargin?: number;
  /**
   * Frames whose intensity is at or below this are left with the unvoiced candidate only, skipping
   * their correlation. The caller sets it where it can prove no voiced candidate could be chosen there.
   */
  unvoicedAtOrBelow?: number;
}

/** Candidates of every frame; slot 0 of each frame is "unvoiced" (frequency 0). */
export interface FrameCandidates {
  frames: number;
  /** Time of frame 0, s from the signal's start. */
  start: number;
  timeStep: number;
  /** The ceiling after clipping to Nyquist: candidates at or above it count as unvoiced. */
  ceiling: number;
  slots: number;
  count: Int32Array;
  frequency: Float64Array;
  strength: Float64Array;
  /** Local peak amplitude over the signal's global peak, 0–1 (for the silence decision). */
  intensity: Float64Array;
}

/** Peaks at lags up to this many samples are always refined in `strongest` mode. */
const SHORT_LAG = 8;

interface Peak {
  /** Whole lag of the local maximum. */
  lag: number;
  frequency: number;
  strength: number;
}

/** Largest absolute deviation from the mean over the whole signal (the silence reference). */
export function globalPeak(pcm: Float32Array): number {
  let mean = 0;
  for (let i = 0; i < pcm.length; i++) mean += pcm[i]!;
  mean /= pcm.length || 1;
  let peak = 0;
  for (let i = 0; i < pcm.length; i++) {
    const v = Math.abs(pcm[i]! - mean);
    if (v > peak) peak = v;
  }
  return peak;
}

export function analysePeriodicity(pcm: Float32Array, sampleRate: number, p: PeriodicityParams): FrameCandidates {
  const fs = sampleRate;
  const dx = 1 / fs;
  const n = pcm.length;
  const isAc = p.method === 'ac';
  const periodSamples = Math.floor(1 / dx / p.floor);
  const halfPeriod = Math.floor(periodSamples / 2) + 1;
  const ceiling = Math.min(p.ceiling, 0.5 / dx);
  const windowDuration = p.periodsPerWindow / p.floor;
  const halfWindow = Math.floor(Math.floor(windowDuration / dx) / 2) - 1;
  const slots = p.keep === 'strongest' ? 2 : Math.max(p.maxCandidates, Math.floor(ceiling / p.floor));
  const layout =
    halfWindow < 2 ? { frames: 0, start: 0, timeStep: p.timeStep } : frameLayout(n, fs, isAc ? windowDuration : 1 / p.floor + windowDuration, p.timeStep);
  const frames = layout.frames;
  const out: FrameCandidates = {
    frames,
    start: layout.start,
    timeStep: p.timeStep,
    ceiling,
    slots,
    count: new Int32Array(frames).fill(1),
    frequency: new Float64Array(frames * slots),
    strength: new Float64Array(frames * slots),
    intensity: new Float64Array(frames),
  };
  const peakAll = frames > 0 ? globalPeak(pcm) : 0;
  if (frames === 0 || peakAll === 0) return out;

  const windowSamples = 2 * halfWindow;
  const maxLag = Math.min(Math.floor(windowSamples / p.periodsPerWindow) + 2, windowSamples);
  // Lags beyond this are only read by the interpolation; the correlation is worth little there.
  const lagLimit = Math.floor(windowSamples * (isAc ? 0.5 : 1));
  const refineDepth = isAc ? 70 : 700;
  // r[lag] for lag in [-lagLimit, lagLimit], stored at index lagLimit + lag (symmetric).
  const r = new Float64Array(2 * lagLimit + 1);
  const centre = lagLimit;
  const frame = new Float64Array(windowSamples);
  const segment = new Float64Array(isAc ? 0 : maxLag + windowSamples);
  let ccSize = 4;
  while (ccSize < maxLag + windowSamples) ccSize *= 2;
  const crossCorrelation = isAc ? null : { correlate: createCrossCorrelation(ccSize), products: new Float64Array(maxLag + 1) };

  // ac: Hann window (length N+2 without its zero ends) and its normalised autocorrelation. The FFT holds
  // 1.5 windows, so lags up to half a window (all that are used) are free of circular wrap-around.
  let fftSize = 4;
  while (fftSize < windowSamples * 1.5) fftSize *= 2;
  const autocorrelate = isAc ? createAutocorrelation(fftSize) : null;
  const window = isAc ? hannWindow(windowSamples + 2).subarray(1, windowSamples + 1) : null;
  const windowR = new Float64Array(isAc ? fftSize / 2 + 1 : 0);
  const ac = new Float64Array(isAc ? fftSize / 2 + 1 : 0);
  if (autocorrelate && window) {
    autocorrelate(window, windowSamples, windowR);
    const w0 = windowR[0]!;
    for (let i = 0; i < windowR.length; i++) windowR[i] = windowR[i]! / w0;
  }

  const peaks: Peak[] = [];
  // Running sum for the local means: frames only move forward, so add what enters, drop what leaves.
  let sumFrom = 0;
  let sumTo = -1;
  let runningSum = 0;
  for (let f = 0; f < frames; f++) {
    const t = layout.start + f * p.timeStep;
    const left = sampleAtOrBefore(t, fs);
    const right = left + 1;

    // Local mean over one longest period on either side; removed before any correlation.
    const m0 = Math.max(0, right - periodSamples);
    const m1 = Math.min(n - 1, left + periodSamples);
    while (sumTo < m1) runningSum += pcm[++sumTo]!;
    while (sumFrom < m0) runningSum -= pcm[sumFrom++]!;
    const mean = runningSum / (2 * periodSamples);

    const s0 = right - halfWindow;
    const j0 = Math.max(0, -s0);
    const j1 = Math.min(windowSamples, n - s0);
    frame.fill(0, 0, j0);
    if (window) for (let j = j0; j < j1; j++) frame[j] = (pcm[s0 + j]! - mean) * window[j]!;
    else for (let j = j0; j < j1; j++) frame[j] = pcm[s0 + j]! - mean;
    frame.fill(0, Math.max(j0, j1));
    // Local peak within half a longest period of the frame's centre.
    let localPeak = 0;
    const p0 = Math.max(0, halfWindow - halfPeriod);
    const p1 = Math.min(windowSamples - 1, halfWindow + halfPeriod - 1);
    for (let j = p0; j <= p1; j++) {
      const v = Math.abs(frame[j]!);
      if (v > localPeak) localPeak = v;
    }
    out.intensity[f] = localPeak > peakAll ? 1 : localPeak / peakAll;
    if (localPeak === 0 || out.intensity[f]! <= (p.unvoicedAtOrBelow ?? 0)) continue;

    if (autocorrelate) {
      autocorrelate(frame, windowSamples, ac);
      const a0 = ac[0]!;
      r[centre] = 1;
      for (let i = 1; i <= lagLimit; i++) {
        const v = a0 > 0 ? ac[i]! / (a0 * windowR[i]!) : 0;
        r[centre + i] = v;
        r[centre - i] = v;
      }
    } else {
      crossCorrelate(pcm, fs, t, p.floor, windowDuration, windowSamples, maxLag, mean, r, centre, lagLimit, segment, crossCorrelation!);
    }

    // Peaks above half the voicing threshold.
    peaks.length = 0;
    const lastLag = Math.min(maxLag, lagLimit) - 1;
    for (let i = 2; i <= lastLag; i++) {
      const ri = r[centre + i]!;
      const rPrev = r[centre + i - 1]!;
      const rNext = r[centre + i + 1]!;
      if (!(ri > 0.5 * p.voicingThreshold && ri > rPrev && ri >= rNext)) continue;
      const dr = 0.5 * (rNext - rPrev);
      const d2r = ri - rPrev + (ri - rNext);
      const lag = i + dr / d2r;
      if (p.keep === 'strongest') {
        // Ranked by the parabola's height; only the strongest few are refined.
        let height = ri + (0.5 * dr * dr) / d2r;
        if (height > 1) height = 1 / height;
        peaks.push({ lag: i, frequency: fs / lag, strength: height });
        continue;
      }
      let strength = interpolateSinc(r, centre + lag, 30);
      if (strength > 1) strength = 1 / strength;
      placeCandidate(peaks, slots - 1, { lag: i, frequency: fs / lag, strength }, p.floor, p.octaveCost);
    }

    const base = f * slots;
    if (p.keep === 'strongest') {
      peaks.sort((a, b) => b.strength - a.strength);
      const margin = p.strongestMargin ?? 0.2;
      let best: Peak | null = null;
      for (const peak of peaks) {
        // Peaks a few samples from lag zero are too coarsely sampled for the estimate to rank them.
        if (best && peak.lag > SHORT_LAG && peak.strength < best.strength - margin) continue;
        const refined = refine(r, centre, peak, fs, refineDepth);
        if (!best || refined.strength > best.strength) best = refined;
      }
      if (best) {
        out.frequency[base + 1] = best.frequency;
        out.strength[base + 1] = best.strength;
        out.count[f] = 2;
      }
      continue;
    }
    for (let k = 0; k < peaks.length; k++) {
      const refined = refine(r, centre, peaks[k]!, fs, peaks[k]!.frequency > 0.3 * fs ? 700 : refineDepth);
      out.frequency[base + 1 + k] = refined.frequency;
      out.strength[base + 1 + k] = refined.strength;
    }
    out.count[f] = 1 + peaks.length;
  }
  return out;
}

function refine(r: Float64Array, centre: number, peak: Peak, fs: number, depth: number): Peak {
  const { x, value } = refineMaximum(r, centre + peak.lag, depth);
  return { lag: peak.lag, frequency: fs / (x - centre), strength: value > 1 ? 1 / value : value };
}

/**
 * Keeps at most `room` peaks: when full, a new peak replaces the weakest kept one if it is stronger,
 * strength counted with an octave cost that favours higher frequencies.
 */
function placeCandidate(kept: Peak[], room: number, peak: Peak, floor: number, octaveCost: number): void {
  if (kept.length < room) {
    kept.push(peak);
    return;
  }
  const score = (c: Peak) => c.strength - octaveCost * Math.log2(floor / c.frequency);
  let weakest = -1;
  let weakestScore = 2;
  for (let k = 0; k < kept.length; k++) {
    const s = score(kept[k]!);
    if (s < weakestScore) {
      weakestScore = s;
      weakest = k;
    }
  }
  if (weakest >= 0 && score(peak) > weakestScore) kept[weakest] = peak;
}

/**
 * Normalised forward cross-correlation at frame time `t`: the first `windowSamples` samples of a stretch
 * starting half an analysis span before `t` against the same stretch shifted by 1…maxLag samples.
 */
function crossCorrelate(
  pcm: Float32Array,
  fs: number,
  t: number,
  floor: number,
  windowDuration: number,
  windowSamples: number,
  maxLag: number,
  mean: number,
  r: Float64Array,
  centre: number,
  lagLimit: number,
  segment: Float64Array,
  cc: { correlate: ReturnType<typeof createCrossCorrelation>; products: Float64Array },
): void {
  const n = pcm.length;
  const startTime = t - 0.5 * (1 / floor + windowDuration);
  const start = Math.max(0, sampleAtOrBefore(startTime, fs));
  const span = Math.min(maxLag + windowSamples, n - start);
  const localMaxLag = span - windowSamples;
  for (let k = 0; k < span; k++) segment[k] = pcm[start + k]! - mean;
  let sumX2 = 0;
  for (let j = 0; j < windowSamples; j++) sumX2 += segment[j]! * segment[j]!;
  let sumY2 = sumX2;
  cc.correlate(segment, windowSamples, segment, span, localMaxLag, cc.products);
  r[centre] = 1;
  for (let i = 1; i <= lagLimit; i++) {
    if (i > localMaxLag) {
      r[centre + i] = 0;
      r[centre - i] = 0;
      continue;
    }
    const y0 = segment[i - 1]!;
    const yEnd = segment[i - 1 + windowSamples]!;
    sumY2 += yEnd * yEnd - y0 * y0;
    const product = cc.products[i]!;
    const denominator = Math.sqrt(sumX2 * sumY2);
    const v = denominator > 0 ? product / denominator : 0;
    r[centre + i] = v;
    r[centre - i] = v;
  }
}

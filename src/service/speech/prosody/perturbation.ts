import { sampleAtOrAfter, sampleAtOrBefore, sampleTime } from './frames';

/** Which intervals between pulses count as periods (Praat's standard voice-report settings). */
export interface PeriodRules {
  /** Shortest period, s (default 0.0001). */
  shortest: number;
  /** Longest period, s (default 0.02: longer gaps are pauses, not periods). */
  longest: number;
  /** Largest ratio between neighbouring periods (default 1.3). */
  maxPeriodFactor: number;
  /** Largest ratio between neighbouring amplitudes for shimmer (default 1.6). */
  maxAmplitudeFactor: number;
}

export const PERIOD_RULES: PeriodRules = { shortest: 0.0001, longest: 0.02, maxPeriodFactor: 1.3, maxAmplitudeFactor: 1.6 };

function isPlausible(p: number, rules: PeriodRules): boolean {
  return p >= rules.shortest && p <= rules.longest;
}

/** Two neighbouring intervals that both count as periods and differ by at most the period factor. */
function isPeriodPair(p1: number, p2: number, rules: PeriodRules): boolean {
  return isPlausible(p1, rules) && isPlausible(p2, rules) && (p1 > p2 ? p1 / p2 : p2 / p1) <= rules.maxPeriodFactor;
}

/**
 * Mean period over the intervals that count as periods: within the shortest/longest bounds and not more
 * than the period factor away from both of their neighbouring intervals (Praat's "Get mean period").
 */
export function meanPeriod(pulses: ArrayLike<number>, rules: PeriodRules = PERIOD_RULES): number | null {
  const n = pulses.length;
  let sum = 0;
  let count = 0;
  for (let i = 0; i + 1 < n; i++) {
    const p = pulses[i + 1]! - pulses[i]!;
    if (!(p > 0) || !isPlausible(p, rules)) continue;
    const before = i > 0 ? pulses[i]! - pulses[i - 1]! : NaN;
    const after = i + 2 < n ? pulses[i + 2]! - pulses[i + 1]! : NaN;
    const factor = (q: number) => (q > 0 ? (p > q ? p / q : q / p) : NaN);
    const fb = factor(before);
    const fa = factor(after);
    // An interval is dropped only when it differs too much from both neighbours that exist.
    if (fb > rules.maxPeriodFactor && fa > rules.maxPeriodFactor) continue;
    sum += p;
    count++;
  }
  return count > 0 ? sum / count : null;
}

/**
 * Jitter (local): the mean absolute difference between consecutive periods over the mean period, a
 * fraction (Praat's "Get jitter (local)": 0.0001, 0.02, 1.3). Pairs where either interval is no period,
 * or they differ by more than the period factor, are skipped. Null with fewer than three periods.
 */
export function jitterLocal(pulses: ArrayLike<number>, rules: PeriodRules = PERIOD_RULES): number | null {
  const n = pulses.length;
  let periods = n - 1;
  if (periods < 2) return null;
  let sum = 0;
  for (let i = 1; i + 1 < n; i++) {
    const p1 = pulses[i]! - pulses[i - 1]!;
    const p2 = pulses[i + 1]! - pulses[i]!;
    if (isPeriodPair(p1, p2, rules)) sum += Math.abs(p1 - p2);
    else periods--;
  }
  if (periods < 2) return null;
  const mean = meanPeriod(pulses, rules);
  return mean ? sum / (periods - 1) / mean : null;
}

/**
 * RMS amplitude around pulse time t under a Hann window reaching `widthLeft` before and `widthRight`
 * after it; null with fewer than three samples.
 */
export function hannWindowedRms(pcm: Float32Array, fs: number, t: number, widthLeft: number, widthRight: number): number | null {
  const i0 = Math.max(0, sampleAtOrAfter(t - widthLeft, fs));
  const i1 = Math.min(pcm.length - 1, sampleAtOrBefore(t + widthRight, fs));
  if (i1 - i0 + 1 < 3) return null;
  let sum = 0;
  let windowSum = 0;
  for (let i = i0; i <= i1; i++) {
    const ti = sampleTime(i, fs);
    const phase = (ti - t) / (ti < t ? widthLeft : widthRight);
    const w = 0.5 + 0.5 * Math.cos(Math.PI * phase);
    const v = pcm[i]! * w;
    sum += v * v;
    windowSum += w * w;
  }
  return Math.sqrt(sum / windowSum);
}

/**
 * Shimmer (local): the mean absolute difference between the amplitudes of consecutive periods over the
 * mean amplitude, a fraction (Praat's "Get shimmer (local)": 0.0001, 0.02, 1.3, 1.6). Each pulse whose
 * two surrounding intervals form a period pair gets an amplitude: the Hann-windowed RMS over 0.2 of the
 * period on each side. Consecutive amplitudes count when their pulses are a plausible period apart and
 * their ratio is within the amplitude factor; the mean amplitude is over all but the last. Null with
 * fewer than three pulses or no counted pair.
 */
export function shimmerLocal(
  pulses: ArrayLike<number>,
  pcm: Float32Array,
  sampleRate: number,
  rules: PeriodRules = PERIOD_RULES,
): number | null {
  const n = pulses.length;
  if (n < 3) return null;
  const times: number[] = [];
  const amplitudes: number[] = [];
  for (let i = 1; i + 1 < n; i++) {
    const p1 = pulses[i]! - pulses[i - 1]!;
    const p2 = pulses[i + 1]! - pulses[i]!;
    if (!isPeriodPair(p1, p2, rules)) continue;
    const a = hannWindowedRms(pcm, sampleRate, pulses[i]!, 0.2 * p1, 0.2 * p2);
    if (a !== null && a > 0) {
      times.push(pulses[i]!);
      amplitudes.push(a);
    }
  }
  let numerator = 0;
  let pairs = 0;
  for (let i = 1; i < amplitudes.length; i++) {
    if (!isPlausible(times[i]! - times[i - 1]!, rules)) continue;
    const a1 = amplitudes[i - 1]!;
    const a2 = amplitudes[i]!;
    if ((a1 > a2 ? a1 / a2 : a2 / a1) <= rules.maxAmplitudeFactor) {
      numerator += Math.abs(a1 - a2);
      pairs++;
    }
  }
  if (pairs < 1) return null;
  let denominator = 0;
  for (let i = 0; i + 1 < amplitudes.length; i++) denominator += amplitudes[i]!;
  denominator /= amplitudes.length - 1;
  return denominator > 0 ? numerator / pairs / denominator : null;
}

/** Order statistics for the prosody summaries. */

/**
 * The q-quantile (0–1) of ascending `sorted` values, interpolating linearly between order statistics
 * placed at (i − 0.5) / n, as Praat's quantiles do (so `quantile(v, 0.5)` is the ordinary median), but held
 * at the smallest and largest value beyond the outer ones where Praat extrapolates. NaN when empty.
 */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  if (n === 1) return sorted[0]!;
  const place = Math.min(Math.max(1, q * n + 0.5), n); // 1-based position
  const left = Math.min(Math.floor(place), n - 1);
  const a = sorted[left - 1]!;
  const b = sorted[left]!;
  return a === b ? a : a + (place - left) * (b - a);
}

/** Sample standard deviation (n − 1); NaN with fewer than two values. */
export function standardDeviation(values: ArrayLike<number>): number {
  const n = values.length;
  if (n < 2) return NaN;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += values[i]!;
  mean /= n;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += (values[i]! - mean) ** 2;
  return Math.sqrt(sum / (n - 1));
}

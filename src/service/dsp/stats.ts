/** Order statistics used by the measures (Praat-style: linear interpolation between order statistics). */

/** The q-quantile (0–1) of finite values, interpolating linearly; null when there are none. */
export function quantile(values: ArrayLike<number>, q: number): number | null {
  const sorted = Float64Array.from(values).filter(Number.isFinite).sort();
  if (sorted.length === 0) return null;
  const pos = Math.min(1, Math.max(0, q)) * (sorted.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.min(sorted.length - 1, lo + 1);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

export function median(values: ArrayLike<number>): number | null {
  return quantile(values, 0.5);
}

/**
 * Weighted median: the value at which half of the total weight lies on each side (the lower one on a tie).
 * Entries with a null value or a weight ≤ 0 are skipped; null when nothing is left.
 */
export function weightedMedian(entries: ReadonlyArray<{ value: number | null; weight: number }>): number | null {
  const usable = entries.filter((e): e is { value: number; weight: number } => e.value !== null && Number.isFinite(e.value) && e.weight > 0);
  if (usable.length === 0) return null;
  usable.sort((a, b) => a.value - b.value);
  const half = usable.reduce((s, e) => s + e.weight, 0) / 2;
  let acc = 0;
  for (const e of usable) {
    acc += e.weight;
    if (acc >= half - 1e-12) return e.value;
  }
  return usable[usable.length - 1]!.value;
}

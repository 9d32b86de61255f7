/**
 * How tall the waveform is drawn. Display only: the audio played and exported is never touched.
 *
 * Drawn at the file's own level, a quiet meeting (speech around −30 dBFS) is a flat line; scaled to the
 * file's single highest peak, one click makes everything else flat again. So the display is scaled to a
 * robust peak: the level that only the loudest 0.2 % of the peak buckets (at least 8 of them, 0.16 s at
 * the service's 50 buckets a second) exceed. A click or two then draws at full height (clipped) instead
 * of shrinking the speech, and speech fills the height. A floor of −50 dBFS keeps a silent file's noise
 * from being blown up to full height. Pure.
 */

/** Loudest buckets that may exceed the reference: a fraction of all, and never fewer than MIN_OUTLIERS. */
const OUTLIER_FRACTION = 0.002;
const MIN_OUTLIERS = 8;
/** −50 dBFS: below this, there is nothing to normalise to. */
export const DISPLAY_FLOOR = 10 ** (-50 / 20);

/** The peak value drawn at full height for a list of max-abs peak buckets (0…1). */
export function displayPeak(peaks: ArrayLike<number>): number {
  const values = Float64Array.from(peaks, (v) => Math.abs(Number.isFinite(v) ? v : 0)).sort();
  if (values.length === 0) return 1;
  const skip = Math.max(MIN_OUTLIERS, Math.ceil(values.length * OUTLIER_FRACTION));
  const reference = values[Math.max(0, values.length - 1 - skip)]!;
  return Math.min(1, Math.max(DISPLAY_FLOOR, reference));
}

/** The display gain a peak reference gives, for the label ("×12"), and its level in dBFS. */
export function displayGain(peak: number): { gain: number; dbfs: number } {
  const p = Math.min(1, Math.max(DISPLAY_FLOOR, peak));
  return { gain: 1 / p, dbfs: 20 * Math.log10(p) };
}

/** Cutting a signal into overlapping analysis frames. */

/** Number of whole frames of `frameLength` samples taken every `hop` samples from `length` samples. */
export function frameCount(length: number, frameLength: number, hop: number): number {
  if (length < frameLength) return 0;
  return Math.floor((length - frameLength) / hop) + 1;
}

/**
 * Copies frame `index` into `out`, applying pre-emphasis (y[n] = x[n] - k·x[n-1]) and a window.
 * Pre-emphasis uses the sample before the frame when there is one, so frames match a whole-signal filter.
 */
export function readFrame(
  signal: Float32Array,
  index: number,
  hop: number,
  window: Float32Array,
  preEmphasis: number,
  out: Float32Array,
): void {
  const n = window.length;
  const start = index * hop;
  let prev = start > 0 ? signal[start - 1]! : signal[start]!;
  for (let i = 0; i < n; i++) {
    const x = signal[start + i] ?? 0;
    out[i] = (x - preEmphasis * prev) * window[i]!;
    prev = x;
  }
  for (let i = n; i < out.length; i++) out[i] = 0;
}

/** Time in seconds of the centre of frame `index`. */
export function frameCentre(index: number, frameLength: number, hop: number, sampleRate: number): number {
  return (index * hop + frameLength / 2) / sampleRate;
}

/** Mel scale and triangular mel filterbanks (HTK mel formula). */

export function hzToMel(hz: number): number {
  return 2595 * Math.log10(1 + hz / 700);
}

export function melToHz(mel: number): number {
  return 700 * (10 ** (mel / 2595) - 1);
}

/** One triangular filter stored sparsely: weights for FFT bins `start`, `start+1`, …. */
export interface MelFilter {
  start: number;
  weights: Float64Array;
}

/**
 * `count` triangular filters with centres evenly spaced on the mel scale between `lowHz` and `highHz`,
 * over the `fftSize / 2 + 1` bins of a power spectrum. Peaks are 1 (HTK style, no area normalisation).
 */
export function melFilterbank(
  count: number,
  fftSize: number,
  sampleRate: number,
  lowHz = 0,
  highHz = sampleRate / 2,
): MelFilter[] {
  const lowMel = hzToMel(lowHz);
  const highMel = hzToMel(highHz);
  const edges: number[] = [];
  for (let i = 0; i < count + 2; i++) edges.push(melToHz(lowMel + ((highMel - lowMel) * i) / (count + 1)));
  const binHz = sampleRate / fftSize;
  const bins = fftSize / 2 + 1;
  const filters: MelFilter[] = [];
  for (let m = 0; m < count; m++) {
    const left = edges[m]!;
    const centre = edges[m + 1]!;
    const right = edges[m + 2]!;
    const first = Math.max(0, Math.ceil(left / binHz));
    const last = Math.min(bins - 1, Math.floor(right / binHz));
    const weights = new Float64Array(Math.max(0, last - first + 1));
    for (let k = first; k <= last; k++) {
      const hz = k * binHz;
      const w = hz <= centre ? (hz - left) / (centre - left) : (right - hz) / (right - centre);
      weights[k - first] = Math.max(0, w);
    }
    filters.push({ start: first, weights });
  }
  return filters;
}

/** Applies the filterbank to a power spectrum, writing filter energies into `out`. */
export function applyFilterbank(filters: MelFilter[], power: Float64Array, out: Float64Array): Float64Array {
  for (let m = 0; m < filters.length; m++) {
    const { start, weights } = filters[m]!;
    let sum = 0;
    for (let i = 0; i < weights.length; i++) sum += weights[i]! * power[start + i]!;
    out[m] = sum;
  }
  return out;
}

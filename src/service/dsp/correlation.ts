import FFT from 'fft.js';

/** Correlations by FFT: O(n log n) instead of the O(n·lags) direct sums. Buffers are reused across calls. */

/** An FFT of `size` (a power of two) with a scratch buffer, transforming zero-padded real frames. */
function paddedTransform(size: number): { fft: FFT; input: Float64Array; transform: (source: ArrayLike<number>, length: number, out: Float64Array) => void } {
  if (size < 4 || (size & (size - 1)) !== 0) throw new Error(`FFT size must be a power of two >= 4, got ${size}`);
  const fft = new FFT(size);
  const input = new Float64Array(size);
  return {
    fft,
    input,
    transform(source, length, out) {
      for (let i = 0; i < length; i++) input[i] = source[i]!;
      input.fill(0, length);
      fft.realTransform(out, input);
    },
  };
}

/**
 * Returns a function computing the autocorrelation Σ x[i]·x[i+lag], lag = 0..size/2, of a frame of at most
 * `size` samples (zero-padded to `size`, a power of two), through its power spectrum. The result is
 * circular: lags up to `size − length` equal the linear autocorrelation (pad to twice the frame for all).
 */
export function createAutocorrelation(size: number): (frame: ArrayLike<number>, length: number, out: Float64Array) => Float64Array {
  const { fft, input, transform } = paddedTransform(size);
  const spectrum = new Float64Array(2 * size);
  const half = size / 2;
  return (frame, length, out) => {
    if (length > size) throw new Error(`frame of ${length} samples is longer than the FFT size ${size}`);
    transform(frame, length, spectrum);
    // The power spectrum is real and even, so its inverse transform is its forward transform over size.
    for (let k = 0; k <= half; k++) {
      const re = spectrum[2 * k]!;
      const im = spectrum[2 * k + 1]!;
      input[k] = re * re + im * im;
    }
    for (let k = 1; k < half; k++) input[size - k] = input[k]!;
    fft.realTransform(spectrum, input);
    for (let lag = 0; lag <= half && lag < out.length; lag++) out[lag] = spectrum[2 * lag]! / size;
    return out;
  };
}

/**
 * Returns a function computing the forward cross-correlation Σ_j x[j]·y[lag+j] (j < xLength) for lag =
 * 0..maxLag, through FFTs of size `size` (a power of two ≥ yLength, so nothing wraps around).
 */
export function createCrossCorrelation(
  size: number,
): (x: ArrayLike<number>, xLength: number, y: ArrayLike<number>, yLength: number, maxLag: number, out: Float64Array) => Float64Array {
  const { fft, transform } = paddedTransform(size);
  const xSpectrum = new Float64Array(2 * size);
  const ySpectrum = new Float64Array(2 * size);
  const result = new Float64Array(2 * size);
  const half = size / 2;
  return (x, xLength, y, yLength, maxLag, out) => {
    if (yLength > size || xLength > yLength) throw new Error(`cross-correlation of ${xLength} over ${yLength} samples does not fit FFT size ${size}`);
    transform(x, xLength, xSpectrum);
    transform(y, yLength, ySpectrum);
    // conj(X)·Y on the non-negative frequencies, then mirrored (the result is real).
    for (let k = 0; k <= half; k++) {
      const xr = xSpectrum[2 * k]!;
      const xi = xSpectrum[2 * k + 1]!;
      const yr = ySpectrum[2 * k]!;
      const yi = ySpectrum[2 * k + 1]!;
      ySpectrum[2 * k] = xr * yr + xi * yi;
      ySpectrum[2 * k + 1] = xr * yi - xi * yr;
    }
    fft.completeSpectrum(ySpectrum);
    fft.inverseTransform(result, ySpectrum);
    const last = Math.min(maxLag, size - 1, out.length - 1);
    for (let lag = 0; lag <= last; lag++) out[lag] = result[2 * lag]!;
    return out;
  };
}

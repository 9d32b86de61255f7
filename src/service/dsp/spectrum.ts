import FFT from 'fft.js';

/**
 * Returns a function computing the power spectrum |X[k]|², k = 0..size/2, of a real frame of `size`
 * samples (a power of two). Buffers are reused across calls, so one analyser serves a whole file.
 */
export function createPowerSpectrum(size: number): (frame: Float32Array, out?: Float64Array) => Float64Array {
  if (size < 4 || (size & (size - 1)) !== 0)
    throw new Error(`FFT size must be a power of two >= 4, got ${size}`);
  const fft = new FFT(size);
  const input = new Array<number>(size).fill(0);
  const spectrum = fft.createComplexArray() as number[];
  const bins = size / 2 + 1;
  return (frame, out = new Float64Array(bins)) => {
    for (let i = 0; i < size; i++) input[i] = frame[i] ?? 0;
    fft.realTransform(spectrum, input);
    // realTransform fills the left half only; the Nyquist bin of a real signal is the plain alternating sum.
    for (let k = 0; k < bins - 1; k++) {
      const re = spectrum[2 * k]!;
      const im = spectrum[2 * k + 1]!;
      out[k] = re * re + im * im;
    }
    let nyquist = 0;
    for (let i = 0; i < size; i++) nyquist += i % 2 === 0 ? input[i]! : -input[i]!;
    out[bins - 1] = nyquist * nyquist;
    return out;
  };
}

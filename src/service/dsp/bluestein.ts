import FFT from 'fft.js';

/**
 * Power spectra |X[k]|², k = 0..floor(size/2), of real frames of any length (not only powers of two), by
 * Bluestein's chirp-z algorithm over a power-of-two FFT: X[k] = w̄[k] · (a ⊛ b)[k] with a[n] = x[n]·w̄[n],
 * b[n] = w[n], w[n] = exp(iπn²/size). Two real frames ride in one complex transform (x₁ + i·x₂), so a pair
 * costs two FFTs of the padded size. Used where a reference fixes an odd FFT size (DNSMOS: 321).
 */
export function createPowerSpectrumAnySize(
  size: number,
): (a: ArrayLike<number>, outA: Float64Array, b?: ArrayLike<number>, outB?: Float64Array) => void {
  if (!Number.isInteger(size) || size < 2) throw new Error(`DFT size must be an integer >= 2, got ${size}`);
  let m = 1;
  while (m < 2 * size - 1) m *= 2;
  const fft = new FFT(m);
  // Chirp angles from n² mod 2·size keep the phase exact for large n.
  const chirpRe = new Float64Array(size);
  const chirpIm = new Float64Array(size);
  for (let n = 0; n < size; n++) {
    const angle = (Math.PI * ((n * n) % (2 * size))) / size;
    chirpRe[n] = Math.cos(angle);
    chirpIm[n] = Math.sin(angle);
  }
  const kernel = fft.createComplexArray() as number[];
  const b = fft.createComplexArray() as number[];
  b.fill(0);
  for (let n = 0; n < size; n++) {
    b[2 * n] = chirpRe[n]!;
    b[2 * n + 1] = chirpIm[n]!;
    if (n > 0) {
      b[2 * (m - n)] = chirpRe[n]!;
      b[2 * (m - n) + 1] = chirpIm[n]!;
    }
  }
  fft.transform(kernel, b);
  const input = fft.createComplexArray() as number[];
  const spectrum = fft.createComplexArray() as number[];
  const conv = fft.createComplexArray() as number[];
  const re = new Float64Array(size);
  const im = new Float64Array(size);
  const bins = Math.floor(size / 2) + 1;

  return (a, outA, bFrame, outB) => {
    input.fill(0);
    for (let n = 0; n < size; n++) {
      const xr = a[n] ?? 0;
      const xi = bFrame ? (bFrame[n] ?? 0) : 0;
      // (xr + i·xi) · conj(chirp[n])
      input[2 * n] = xr * chirpRe[n]! + xi * chirpIm[n]!;
      input[2 * n + 1] = xi * chirpRe[n]! - xr * chirpIm[n]!;
    }
    fft.transform(spectrum, input);
    for (let k = 0; k < m; k++) {
      const sr = spectrum[2 * k]!;
      const si = spectrum[2 * k + 1]!;
      const kr = kernel[2 * k]!;
      const ki = kernel[2 * k + 1]!;
      spectrum[2 * k] = sr * kr - si * ki;
      spectrum[2 * k + 1] = sr * ki + si * kr;
    }
    fft.inverseTransform(conv, spectrum);
    for (let k = 0; k < size; k++) {
      const cr = conv[2 * k]!;
      const ci = conv[2 * k + 1]!;
      re[k] = cr * chirpRe[k]! + ci * chirpIm[k]!;
      im[k] = ci * chirpRe[k]! - cr * chirpIm[k]!;
    }
    if (!bFrame || !outB) {
      for (let k = 0; k < bins; k++) outA[k] = re[k]! * re[k]! + im[k]! * im[k]!;
      return;
    }
    // Z = X₁ + i·X₂ with X₁, X₂ Hermitian: X₁[k] = (Z[k] + conj Z[−k]) / 2, X₂[k] = (Z[k] − conj Z[−k]) / 2i.
    for (let k = 0; k < bins; k++) {
      const j = k === 0 ? 0 : size - k;
      const r1 = (re[k]! + re[j]!) / 2;
      const i1 = (im[k]! - im[j]!) / 2;
      const r2 = (im[k]! + im[j]!) / 2;
      const i2 = (re[j]! - re[k]!) / 2;
      outA[k] = r1 * r1 + i1 * i1;
      outB[k] = r2 * r2 + i2 * i2;
    }
  };
}

/** Window functions for short-time analysis. */

/** Hamming window of length n (symmetric), the usual choice for MFCC front ends. */
export function hammingWindow(n: number): Float32Array {
  const w = new Float32Array(n);
  if (n === 1) {
    w[0] = 1;
    return w;
  }
  for (let i = 0; i < n; i++) w[i] = 0.54 - 0.46 * Math.cos((2 * Math.PI * i) / (n - 1));
  return w;
}

/** Hann window of length n (symmetric). */
export function hannWindow(n: number): Float32Array {
  const w = new Float32Array(n);
  if (n === 1) {
    w[0] = 1;
    return w;
  }
  for (let i = 0; i < n; i++) w[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (n - 1));
  return w;
}

/** Periodic Hann window of length n (the symmetric one of n + 1, last point dropped): shifted copies at a hop of n/2 or
 * n/4 sum to a constant, as overlap-add wants, and spectral analysis frames use it for the same reason. */
export function periodicHannWindow(n: number): Float32Array {
  const w = new Float32Array(n);
  for (let i = 0; i < n; i++) w[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / n);
  return w;
}

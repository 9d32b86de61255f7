/**
 * 16 kHz ↔ 48 kHz by an integer factor of 3, with one windowed-sinc low-pass (cut-off at 16 kHz's Nyquist)
 * for both directions. Linear phase: the filter's delay is removed, so a sample at time t stays at time t, which
 * word timings rely on. Pure and synchronous, for stages that run per chunk (no ffmpeg process per call).
 */

export const FACTOR = 3;
/** Taps per side of the centre; 48 taps per output phase is well past the 60 dB a speech front end needs. */
const HALF = 72;

/** Kaiser-windowed sinc at the low rate's Nyquist, gain 1 at DC (for the high rate). */
function design(): Float64Array {
  const beta = 8;
  const taps = new Float64Array(2 * HALF + 1);
  const i0 = (x: number) => {
    let sum = 1;
    let term = 1;
    for (let k = 1; k < 30; k++) {
      term *= (x / (2 * k)) ** 2;
      sum += term;
    }
    return sum;
  };
  // A little below Nyquist so the transition band stays under it.
  const cutoff = 0.9 / (2 * FACTOR);
  let sum = 0;
  for (let n = -HALF; n <= HALF; n++) {
    const x = 2 * cutoff * n;
    const sinc = n === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x);
    const w = i0(beta * Math.sqrt(1 - (n / HALF) ** 2)) / i0(beta);
    taps[n + HALF] = 2 * cutoff * sinc * w;
    sum += taps[n + HALF]!;
  }
  for (let i = 0; i < taps.length; i++) taps[i]! /= sum;
  return taps;
}

const TAPS = design();

/** Three samples per input sample; the same duration, band-limited to the input's band. */
export function upsampleByThree(x: Float32Array): Float32Array {
  const out = new Float32Array(x.length * FACTOR);
  for (let m = 0; m < out.length; m++) {
    // out[m] = 3 · Σ_k x[k] · h[m − 3k], only taps landing on input samples.
    let acc = 0;
    const kFrom = Math.max(0, Math.ceil((m - HALF) / FACTOR));
    const kTo = Math.min(x.length - 1, Math.floor((m + HALF) / FACTOR));
    for (let k = kFrom; k <= kTo; k++) acc += x[k]! * TAPS[m - FACTOR * k + HALF]!;
    out[m] = FACTOR * acc;
  }
  return out;
}

/** One sample per three, low-passed first so nothing above the low rate's Nyquist folds down. */
export function downsampleByThree(x: Float32Array): Float32Array {
  const out = new Float32Array(Math.floor(x.length / FACTOR));
  for (let k = 0; k < out.length; k++) {
    const centre = FACTOR * k;
    let acc = 0;
    const from = Math.max(0, centre - HALF);
    const to = Math.min(x.length - 1, centre + HALF);
    for (let m = from; m <= to; m++) acc += x[m]! * TAPS[centre - m + HALF]!;
    out[k] = acc;
  }
  return out;
}

/**
 * Second-order IIR sections (Robert Bristow-Johnson's "Audio EQ Cookbook" designs) and Butterworth
 * cascades built from them, for band-splitting a signal in the time domain where an FFT's resolution is
 * too coarse (below ~150 Hz with 20 ms frames).
 */

/** y[n] = b0·x[n] + b1·x[n−1] + b2·x[n−2] − a1·y[n−1] − a2·y[n−2] (a0 normalised to 1). */
export interface Biquad {
  b0: number;
  b1: number;
  b2: number;
  a1: number;
  a2: number;
}

export function lowPass(cutoffHz: number, sampleRate: number, q = Math.SQRT1_2): Biquad {
  const w = (2 * Math.PI * cutoffHz) / sampleRate;
  const alpha = Math.sin(w) / (2 * q);
  const cos = Math.cos(w);
  const a0 = 1 + alpha;
  return {
    b0: (1 - cos) / 2 / a0,
    b1: (1 - cos) / a0,
    b2: (1 - cos) / 2 / a0,
    a1: (-2 * cos) / a0,
    a2: (1 - alpha) / a0,
  };
}

export function highPass(cutoffHz: number, sampleRate: number, q = Math.SQRT1_2): Biquad {
  const w = (2 * Math.PI * cutoffHz) / sampleRate;
  const alpha = Math.sin(w) / (2 * q);
  const cos = Math.cos(w);
  const a0 = 1 + alpha;
  return {
    b0: (1 + cos) / 2 / a0,
    b1: -(1 + cos) / a0,
    b2: (1 + cos) / 2 / a0,
    a1: (-2 * cos) / a0,
    a2: (1 - alpha) / a0,
  };
}

/** Q of each section of an even-order Butterworth filter (poles evenly spaced on the unit circle). */
export function butterworthQs(order: number): number[] {
  if (order < 2 || order % 2 !== 0) throw new Error(`Butterworth order must be even and >= 2, got ${order}`);
  return Array.from(
    { length: order / 2 },
    (_, k) => 1 / (2 * Math.sin(((2 * k + 1) * Math.PI) / (2 * order))),
  );
}

export function butterworthLowPass(cutoffHz: number, sampleRate: number, order = 4): Biquad[] {
  return butterworthQs(order).map((q) => lowPass(cutoffHz, sampleRate, q));
}

export function butterworthHighPass(cutoffHz: number, sampleRate: number, order = 4): Biquad[] {
  return butterworthQs(order).map((q) => highPass(cutoffHz, sampleRate, q));
}

/**
 * Filters `input[from, to)` through the cascade into a new array of `to − from` samples. The filters run
 * from `max(0, from − warmup)` so their state has settled when the output starts.
 */
export function filterRange(
  input: Float32Array,
  from: number,
  to: number,
  sections: Biquad[],
  warmup = 0,
): Float32Array {
  const begin = Math.max(0, from - warmup);
  const out = new Float32Array(Math.max(0, to - from));
  const state = sections.map(() => ({ x1: 0, x2: 0, y1: 0, y2: 0 }));
  for (let i = begin; i < to; i++) {
    let v = input[i]!;
    for (let s = 0; s < sections.length; s++) {
      const f = sections[s]!;
      const st = state[s]!;
      const y = f.b0 * v + f.b1 * st.x1 + f.b2 * st.x2 - f.a1 * st.y1 - f.a2 * st.y2;
      st.x2 = st.x1;
      st.x1 = v;
      st.y2 = st.y1;
      st.y1 = y;
      v = y;
    }
    if (i >= from) out[i - from] = v;
  }
  return out;
}

/** Magnitude response |H(f)| of a cascade, for tests and documentation. */
export function magnitudeResponse(sections: Biquad[], hz: number, sampleRate: number): number {
  const w = (2 * Math.PI * hz) / sampleRate;
  let mag = 1;
  for (const f of sections) {
    // H(e^jw) = (b0 + b1 e^-jw + b2 e^-2jw) / (1 + a1 e^-jw + a2 e^-2jw)
    const nr = f.b0 + f.b1 * Math.cos(w) + f.b2 * Math.cos(2 * w);
    const ni = -(f.b1 * Math.sin(w) + f.b2 * Math.sin(2 * w));
    const dr = 1 + f.a1 * Math.cos(w) + f.a2 * Math.cos(2 * w);
    const di = -(f.a1 * Math.sin(w) + f.a2 * Math.sin(2 * w));
    mag *= Math.hypot(nr, ni) / Math.hypot(dr, di);
  }
  return mag;
}

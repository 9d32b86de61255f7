/**
 * Programme loudness per ITU-R BS.1770-4 (the EBU R128 measure): K-weighting (a high shelf for the head,
 * then the RLB high-pass), mean square per channel over 400 ms blocks overlapping by 75 %, an absolute
 * gate at −70 LUFS and a relative gate 10 LU below the loudness of the blocks that pass it.
 */

export interface Biquad {
  b: [number, number, number];
  a: [number, number, number];
}

/**
 * The two K-weighting stages at any sample rate, from the analogue prototypes the 48 kHz coefficients
 * of BS.1770 were derived from (the same construction as libebur128 and pyloudnorm).
 */
export function kWeighting(sampleRate: number): [Biquad, Biquad] {
  let f0 = 1681.974450955533;
  const gainDb = 3.999843853973347;
  let q = 0.7071752369554196;
  let k = Math.tan((Math.PI * f0) / sampleRate);
  const vh = 10 ** (gainDb / 20);
  const vb = vh ** 0.4996667741545416;
  let a0 = 1 + k / q + k * k;
  const shelf: Biquad = {
    b: [(vh + (vb * k) / q + k * k) / a0, (2 * (k * k - vh)) / a0, (vh - (vb * k) / q + k * k) / a0],
    a: [1, (2 * (k * k - 1)) / a0, (1 - k / q + k * k) / a0],
  };
  f0 = 38.13547087602444;
  q = 0.5003270373238773;
  k = Math.tan((Math.PI * f0) / sampleRate);
  a0 = 1 + k / q + k * k;
  const highpass: Biquad = { b: [1, -2, 1], a: [1, (2 * (k * k - 1)) / a0, (1 - k / q + k * k) / a0] };
  return [shelf, highpass];
}

function filterChannel(samples: Float32Array, channels: number, channel: number, stages: Biquad[]): Float64Array {
  const frames = Math.floor(samples.length / channels);
  const out = new Float64Array(frames);
  for (let i = 0; i < frames; i++) out[i] = samples[i * channels + channel]!;
  for (const { b, a } of stages) {
    let x1 = 0, x2 = 0, y1 = 0, y2 = 0;
    for (let i = 0; i < frames; i++) {
      const x = out[i]!;
      const y = b[0] * x + b[1] * x1 + b[2] * x2 - a[1] * y1 - a[2] * y2;
      x2 = x1;
      x1 = x;
      y2 = y1;
      y1 = y;
      out[i] = y;
    }
  }
  return out;
}

/** BS.1770 channel weights: 1 for front channels, 1.41 for surrounds, the LFE of 5.1 left out. */
function channelWeights(channels: number): number[] {
  if (channels === 6) return [1, 1, 1, 0, 1.41, 1.41];
  if (channels === 5) return [1, 1, 1, 1.41, 1.41];
  return new Array(channels).fill(1);
}

const ABSOLUTE_GATE = -70;
const RELATIVE_GATE = -10;
const loudnessOf = (power: number) => -0.691 + 10 * Math.log10(power);

/** Gating per BS.1770-4 over the weighted mean-square power of each 400 ms block. */
function gatedLoudness(powers: ArrayLike<number>): number {
  const passed: number[] = [];
  for (let i = 0; i < powers.length; i++) if (powers[i]! > 0 && loudnessOf(powers[i]!) > ABSOLUTE_GATE) passed.push(powers[i]!);
  if (passed.length === 0) return -Infinity;
  const relative = loudnessOf(passed.reduce((s, p) => s + p, 0) / passed.length) + RELATIVE_GATE;
  const gated = passed.filter((p) => loudnessOf(p) > relative);
  return loudnessOf(gated.reduce((s, p) => s + p, 0) / gated.length);
}

/** Block layout: 400 ms blocks every 100 ms; shorter than one block, the whole span is one block. */
function blocks(frames: number, sampleRate: number): { block: number; starts: number[] } {
  const block = Math.min(frames, Math.round(0.4 * sampleRate));
  const hop = Math.max(1, Math.round(0.1 * sampleRate));
  const starts: number[] = [];
  for (let start = 0; start + block <= frames; start += hop) starts.push(start);
  return { block, starts };
}

/** Per block, the channel-weighted mean of x·y over K-weighted signals (x = y gives the block power). */
function blockProducts(x: Float64Array[], y: Float64Array[], weights: number[], frames: number, sampleRate: number): Float64Array {
  const { block, starts } = blocks(frames, sampleRate);
  const out = new Float64Array(starts.length);
  for (let c = 0; c < weights.length; c++) {
    if (weights[c] === 0) continue;
    // Running sums make every block O(1).
    const sums = new Float64Array(frames + 1);
    for (let i = 0; i < frames; i++) sums[i + 1] = sums[i]! + x[c]![i]! * y[c]![i]!;
    starts.forEach((start, b) => (out[b]! += (weights[c]! * (sums[start + block]! - sums[start]!)) / block));
  }
  return out;
}

/**
 * Integrated loudness in LUFS of interleaved samples; −Infinity when every block is below the absolute
 * gate (silence).
 */
export function integratedLoudness(samples: Float32Array, channels: number, sampleRate: number): number {
  const frames = Math.floor(samples.length / channels);
  if (frames === 0) return -Infinity;
  const stages = kWeighting(sampleRate);
  const weights = channelWeights(channels);
  const filtered = weights.map((_, c) => filterChannel(samples, channels, c, stages));
  return gatedLoudness(blockProducts(filtered, filtered, weights, frames, sampleRate));
}

/**
 * The loudness of `a + gain·b` for any gain, from one pass over the two signals: K-weighting is linear,
 * so each block's power is Σa² + 2·gain·Σab + gain²·Σb². For finding the gain that puts a voice over a
 * background at a target loudness.
 */
export function mixLoudness(a: Float32Array, b: Float32Array, channels: number, sampleRate: number): (gain: number) => number {
  const frames = Math.floor(Math.min(a.length, b.length) / channels);
  if (frames === 0) return () => -Infinity;
  const stages = kWeighting(sampleRate);
  const weights = channelWeights(channels);
  const fa = weights.map((_, c) => filterChannel(a, channels, c, stages));
  const fb = weights.map((_, c) => filterChannel(b, channels, c, stages));
  const aa = blockProducts(fa, fa, weights, frames, sampleRate);
  const ab = blockProducts(fa, fb, weights, frames, sampleRate);
  const bb = blockProducts(fb, fb, weights, frames, sampleRate);
  return (gain) => gatedLoudness(aa.map((p, i) => p + 2 * gain * ab[i]! + gain * gain * bb[i]!));
}

/**
 * Pitch-preserving time stretch by WSOLA (waveform-similarity overlap-add; Verhelst & Roelands 1993).
 * Output frames of N samples are laid down every N/2 samples under a Hann window; each is read from the
 * input near where the time map puts it, shifted by up to ±tolerance to the position whose start best
 * matches the natural continuation of the previous frame, so periods line up and pitch is kept. Suited to
 * speech between about 0.5× and 2× (dubbing stays far inside that).
 */
export interface WsolaOptions {
  /** Frame length in seconds (default 0.025: two or more pitch periods of any voice). */
  frameSeconds?: number;
  /** How far a frame may move from its nominal position, in seconds (default 0.008). */
  toleranceSeconds?: number;
}

/**
 * Returns `input` played `factor` times as long (factor 1.25: 25 % longer and slower; 0.8: faster), of
 * length round(input.length × factor), at the same pitch. Mono.
 */
export function wsolaStretch(input: Float32Array, sampleRate: number, factor: number, options: WsolaOptions = {}): Float32Array {
  if (!(factor > 0) || !Number.isFinite(factor)) throw new RangeError(`stretch factor must be positive, got ${factor}`);
  const outLength = Math.round(input.length * factor);
  if (Math.abs(factor - 1) < 1e-9) return input.slice();
  return wsolaAlong(input, sampleRate, outLength, (outSample) => outSample / factor, options);
}

/**
 * WSOLA along any monotone time map: an output of `outLength` samples whose sample `n` plays the input near
 * `sourceAt(n)` (a sample position), pitch kept. A constant rate is `wsolaStretch`; a piecewise map warps
 * each stretch of the input on its own (dsp/time-map.ts).
 */
export function wsolaAlong(input: Float32Array, sampleRate: number, outLength: number, sourceAt: (outSample: number) => number, options: WsolaOptions = {}): Float32Array {
  const half = Math.max(2, Math.round(((options.frameSeconds ?? 0.025) * sampleRate) / 2));
  const frame = half * 2;
  const tolerance = Math.max(1, Math.round((options.toleranceSeconds ?? 0.008) * sampleRate));
  // The coarse search looks at speech's main band (below 4 kHz) only: one sample in `step` at 8 kHz and up.
  const step = Math.max(1, Math.floor(sampleRate / 8000));
  const window = new Float32Array(frame);
  for (let i = 0; i < frame; i++) window[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / frame);

  const at = (i: number) => (i >= 0 && i < input.length ? input[i]! : 0);
  const out = new Float32Array(outLength + frame);
  const weight = new Float32Array(outLength + frame);
  let previous = 0;
  for (let k = 0; k * half < outLength; k++) {
    const nominal = Math.round(sourceAt(k * half));
    let chosen = nominal;
    if (k > 0) {
      // The frame must continue what the previous frame would have played next: match its overlap half.
      // Coarse to fine: every `step`-th shift on every `step`-th sample, then each shift around the best.
      const template = previous + half;
      const score = (start: number, stride: number) => {
        let dot = 0;
        let energy = 1e-12;
        for (let i = 0; i < half; i += stride) {
          const x = at(start + i);
          dot += x * at(template + i);
          energy += x * x;
        }
        return dot / Math.sqrt(energy);
      };
      let best = -Infinity;
      for (let shift = -tolerance; shift <= tolerance; shift += step) {
        const s = score(nominal + shift, step);
        if (s > best) {
          best = s;
          chosen = nominal + shift;
        }
      }
      const coarse = chosen;
      best = -Infinity;
      for (let shift = Math.max(-tolerance, coarse - nominal - step + 1); shift <= Math.min(tolerance, coarse - nominal + step - 1); shift++) {
        const s = score(nominal + shift, 1);
        if (s > best) {
          best = s;
          chosen = nominal + shift;
        }
      }
    }
    const base = k * half;
    for (let i = 0; i < frame; i++) {
      out[base + i]! += window[i]! * at(chosen + i);
      weight[base + i]! += window[i]!;
    }
    previous = chosen;
  }
  // Divide by the summed window so the first and last half frames are not faded in or out.
  const result = new Float32Array(outLength);
  for (let i = 0; i < outLength; i++) result[i] = weight[i]! > 1e-3 ? out[i]! / weight[i]! : 0;
  return result;
}

import { createPowerSpectrum } from '../../dsp/spectrum';
import { periodicHannWindow } from '../../dsp/window';

/**
 * The short-time analysis every quality measure shares: 20 ms Hann frames (320 samples at 16 kHz)
 * zero-padded to a 512-point FFT, every 10 ms. Spectra are scaled so that summing a band gives the mean
 * square (power) of the signal in that band, so noise and speech spectra compare directly.
 */
export const FRAME = 320;
export const FFT_SIZE = 512;
export const HOP = 160;
export const BINS = FFT_SIZE / 2 + 1;

const window = periodicHannWindow(FRAME);
const windowEnergy = window.reduce((s, w) => s + w * w, 0);
// One-sided bins 1..N/2−1 stand for two; Parseval: Σ|X|² = N · Σ(x·w)².
const SCALE = 1 / (FFT_SIZE * windowEnergy);

export function binHz(sampleRate: number): number {
  return sampleRate / FFT_SIZE;
}

/**
 * Returns a function that writes the power spectrum of the frame starting at sample `start` into `out`
 * (power per bin, DC removed: the frame's mean is subtracted, and bin 0 is zeroed).
 */
export function createFrameSpectrum(): (pcm: Float32Array, start: number, out: Float64Array) => Float64Array {
  const power = createPowerSpectrum(FFT_SIZE);
  const frame = new Float32Array(FFT_SIZE);
  return (pcm, start, out) => {
    let mean = 0;
    for (let i = 0; i < FRAME; i++) mean += pcm[start + i] ?? 0;
    mean /= FRAME;
    for (let i = 0; i < FRAME; i++) frame[i] = ((pcm[start + i] ?? 0) - mean) * window[i]!;
    power(frame, out);
    out[0] = 0;
    for (let k = 1; k < BINS; k++) out[k]! *= k === BINS - 1 ? SCALE : 2 * SCALE;
    return out;
  };
}

/** Power of the bins whose centre lies in [loHz, hiHz). */
export function bandPower(
  spectrum: ArrayLike<number>,
  sampleRate: number,
  loHz = 0,
  hiHz = Infinity,
): number {
  const hz = binHz(sampleRate);
  const first = Math.max(1, Math.ceil(loHz / hz));
  const last = Math.min(BINS - 1, Math.ceil(hiHz / hz) - 1);
  let sum = 0;
  for (let k = first; k <= last; k++) sum += spectrum[k]!;
  return sum;
}

/** Number of whole frames of a range of `samples` at the 10 ms hop. */
export function frameCountFor(samples: number, hop = HOP): number {
  return samples < FRAME ? 0 : Math.floor((samples - FRAME) / hop) + 1;
}

/** dB of a power (mean square), floored at −120 dB so digital silence stays finite. */
export function powerDb(power: number): number {
  return 10 * Math.log10(Math.max(power, 1e-12));
}

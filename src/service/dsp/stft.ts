import FFT from 'fft.js';
import { periodicHannWindow } from './window';

/**
 * Short-time Fourier transform of a real signal and its inverse by weighted overlap-add. Bin-major storage
 * (`re[bin * frames + t]`), because enhancement methods that work per frequency (WPE) walk one bin's frames.
 */
export interface Spectrogram {
  size: number;
  hop: number;
  /** Samples of the signal it came from, so the inverse returns exactly that many. */
  length: number;
  frames: number;
  /** size / 2 + 1 */
  bins: number;
  re: Float64Array;
  im: Float64Array;
}

/**
 * Frame t covers samples [t·hop − (size − hop), t·hop + hop): the signal is padded with size − hop zeros in front,
 * so every sample lies in the same number of frames and the inverse needs no special edges.
 */
export function stft(signal: Float32Array, size = 512, hop = size / 4): Spectrogram {
  if (size < 4 || (size & (size - 1)) !== 0)
    throw new Error(`STFT size must be a power of two >= 4, got ${size}`);
  if (!Number.isInteger(hop) || hop <= 0 || hop > size)
    throw new Error(`STFT hop must be an integer in 1..${size}, got ${hop}`);
  const pad = size - hop;
  const frames = Math.ceil((signal.length + pad) / hop);
  const bins = size / 2 + 1;
  const re = new Float64Array(bins * frames);
  const im = new Float64Array(bins * frames);
  const fft = new FFT(size);
  const window = periodicHannWindow(size);
  const input = new Array<number>(size).fill(0);
  const out = fft.createComplexArray() as number[];
  for (let t = 0; t < frames; t++) {
    const start = t * hop - pad;
    for (let i = 0; i < size; i++) {
      const n = start + i;
      input[i] = n >= 0 && n < signal.length ? signal[n]! * window[i]! : 0;
    }
    fft.realTransform(out, input);
    fft.completeSpectrum(out);
    for (let k = 0; k < bins; k++) {
      re[k * frames + t] = out[2 * k]!;
      im[k * frames + t] = out[2 * k + 1]!;
    }
  }
  return { size, hop, length: signal.length, frames, bins, re, im };
}

/** The signal back from a (possibly modified) spectrogram: windowed inverse frames overlap-added, divided by Σ window². */
export function istft(spec: Spectrogram): Float32Array {
  const { size, hop, frames, bins, re, im, length } = spec;
  const pad = size - hop;
  const fft = new FFT(size);
  const window = periodicHannWindow(size);
  const full = fft.createComplexArray() as number[];
  const time = fft.createComplexArray() as number[];
  const sum = new Float64Array(frames * hop + size);
  const norm = new Float64Array(frames * hop + size);
  for (let t = 0; t < frames; t++) {
    for (let k = 0; k < bins; k++) {
      full[2 * k] = re[k * frames + t]!;
      full[2 * k + 1] = im[k * frames + t]!;
    }
    // A real signal's spectrum is Hermitian: the upper half mirrors the lower.
    for (let k = bins; k < size; k++) {
      full[2 * k] = full[2 * (size - k)]!;
      full[2 * k + 1] = -full[2 * (size - k) + 1]!;
    }
    fft.inverseTransform(time, full);
    const start = t * hop;
    for (let i = 0; i < size; i++) {
      sum[start + i]! += time[2 * i]! * window[i]!;
      norm[start + i]! += window[i]! * window[i]!;
    }
  }
  const out = new Float32Array(length);
  for (let n = 0; n < length; n++) {
    const w = norm[n + pad]!;
    out[n] = w > 1e-8 ? sum[n + pad]! / w : 0;
  }
  return out;
}

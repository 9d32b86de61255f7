import { createPowerSpectrumAnySize } from '../../dsp/bluestein';

/**
 * The signal side of DNSMOS (Microsoft's DNS-Challenge `dnsmos_local.py`, reimplemented from its
 * description, not copied): which 9.01 s windows of a clip are scored, the P.808 model's log-mel input,
 * and the polynomials that map raw P.835 outputs to published scores. Pure functions; the ONNX sessions
 * live in dnsmos.ts.
 */

export const DNSMOS_RATE = 16_000;
/** Samples per scored window: `int(9.01 · 16000)`. */
export const DNSMOS_WINDOW = 144_160;
/** The P.808 model sees the window without its last 160 samples. */
export const P808_SAMPLES = DNSMOS_WINDOW - 160;
export const P808_FRAMES = 900;
export const P808_MELS = 120;

const N_FFT = 321;
const HOP = 160;
const BINS = 1 + Math.floor(N_FFT / 2); // 161

/** Raw P.835 outputs → published SIG, BAK, OVRL (quadratics, highest power first). */
const POLY = {
  sig: [-0.08397278, 1.22083953, 0.0052439],
  bak: [-0.13166888, 1.60915514, -0.39604546],
  ovrl: [-0.06766283, 1.11546468, 0.04602535],
} as const;

function quadratic(c: readonly number[], x: number): number {
  return (c[0]! * x + c[1]!) * x + c[2]!;
}

export function p835FromRaw(
  sig: number,
  bak: number,
  ovrl: number,
): { sig: number; bak: number; ovrl: number } {
  return { sig: quadratic(POLY.sig, sig), bak: quadratic(POLY.bak, bak), ovrl: quadratic(POLY.ovrl, ovrl) };
}

/**
 * How a clip is cut into windows.
 * - `reference`: exactly as the reference: a clip shorter than 9.01 s is doubled until long enough; windows
 *   start every whole second; their number is `trunc(floor(len / 16000) − 9.01) + 1`; a window whose end
 *   `trunc((i + 9.01) · 16000)` falls one sample short in floating point is skipped (the reference skips
 *   windows 7–23, 119–…, a quirk of `9.01` in binary).
 * - `budget` (default): the reference's windows while it would use at most two (clips up to 11 s, so the
 *   reference clips score identically); a clip shorter than 9.01 s gets only the first window of its doubled
 *   version (the others are cyclic shifts of the same audio); a longer clip gets `ceil(len / 9.01 s)` windows
 *   spread evenly from its start to its end, so every second is heard about once instead of up to nine times.
 */
export type DnsmosWindowing = 'reference' | 'budget';

/** Window starts, in samples of the (possibly doubled) clip; a start may exceed the clip's own length. */
export function windowStarts(length: number, windowing: DnsmosWindowing = 'budget'): number[] {
  if (length <= 0) return [];
  let doubled = length;
  while (doubled < DNSMOS_WINDOW) doubled *= 2;
  // The same float64 arithmetic as the reference, so the same windows fall out.
  const hops = Math.trunc(Math.floor(doubled / DNSMOS_RATE) - 9.01) + 1;
  const reference: number[] = [];
  for (let i = 0; i < hops; i++) {
    const start = Math.trunc(i * DNSMOS_RATE);
    const end = Math.min(doubled, Math.trunc((i + 9.01) * DNSMOS_RATE));
    if (end - start >= DNSMOS_WINDOW) reference.push(start);
  }
  if (windowing === 'reference' || reference.length <= 1) return reference;
  if (length < DNSMOS_WINDOW) return [0];
  if (hops <= 2) return reference;
  const count = Math.ceil(length / DNSMOS_WINDOW);
  const last = length - DNSMOS_WINDOW;
  return Array.from({ length: count }, (_, i) => Math.round((last * i) / (count - 1)));
}

/**
 * Copies window `start` of the clip into `out` (DNSMOS_WINDOW samples). The doubled clip is periodic with
 * the clip's length, so sample j of it is `pcm[j mod length]`: nothing is materialised.
 */
export function readWindow(
  pcm: Float32Array,
  start: number,
  out: Float32Array = new Float32Array(DNSMOS_WINDOW),
): Float32Array {
  const n = pcm.length;
  if (start + DNSMOS_WINDOW <= n) {
    out.set(pcm.subarray(start, start + DNSMOS_WINDOW));
    return out;
  }
  let j = start % n;
  for (let i = 0; i < DNSMOS_WINDOW;) {
    const take = Math.min(DNSMOS_WINDOW - i, n - j);
    out.set(pcm.subarray(j, j + take), i);
    i += take;
    j = 0;
  }
  return out;
}

// librosa 0.8.1's Slaney mel scale: linear below 1 kHz, logarithmic above.
const F_SP = 200 / 3;
const MIN_LOG_HZ = 1000;
const MIN_LOG_MEL = MIN_LOG_HZ / F_SP;
const LOGSTEP = Math.log(6.4) / 27;

function hzToSlaneyMel(hz: number): number {
  return hz >= MIN_LOG_HZ ? MIN_LOG_MEL + Math.log(hz / MIN_LOG_HZ) / LOGSTEP : hz / F_SP;
}

function slaneyMelToHz(mel: number): number {
  return mel >= MIN_LOG_MEL ? MIN_LOG_HZ * Math.exp(LOGSTEP * (mel - MIN_LOG_MEL)) : F_SP * mel;
}

/** 120 × 161 Slaney-normalised triangles over 0–8 kHz, bin k at `linspace(0, 8000, 161)[k]`, float32 like librosa's. */
function melBasis(): Float64Array[] {
  const fftFreqs = Array.from({ length: BINS }, (_, k) => ((DNSMOS_RATE / 2) * k) / (BINS - 1));
  const maxMel = hzToSlaneyMel(DNSMOS_RATE / 2);
  const melF = Array.from({ length: P808_MELS + 2 }, (_, i) => slaneyMelToHz((maxMel * i) / (P808_MELS + 1)));
  const basis: Float64Array[] = [];
  for (let m = 0; m < P808_MELS; m++) {
    const row = new Float64Array(BINS);
    const lowDiff = melF[m + 1]! - melF[m]!;
    const highDiff = melF[m + 2]! - melF[m + 1]!;
    const enorm = 2 / (melF[m + 2]! - melF[m]!);
    for (let k = 0; k < BINS; k++) {
      const lower = (fftFreqs[k]! - melF[m]!) / lowDiff;
      const upper = (melF[m + 2]! - fftFreqs[k]!) / highDiff;
      row[k] = Math.fround(Math.fround(Math.max(0, Math.min(lower, upper))) * enorm);
    }
    basis.push(row);
  }
  return basis;
}

interface MelTables {
  window: Float64Array;
  power: ReturnType<typeof createPowerSpectrumAnySize>;
  basis: { start: number; weights: Float64Array }[];
}

let tables: MelTables | null = null;

function melTables(): MelTables {
  if (tables) return tables;
  // Periodic Hann (scipy's get_window with fftbins=True) of the FFT's own odd length.
  const window = Float64Array.from(
    { length: N_FFT },
    (_, n) => 0.5 - 0.5 * Math.cos((2 * Math.PI * n) / N_FFT),
  );
  const basis = melBasis().map((row) => {
    let start = 0;
    while (start < BINS && row[start] === 0) start++;
    let end = BINS;
    while (end > start && row[end - 1] === 0) end--;
    return { start, weights: row.slice(start, end) };
  });
  // N_FFT = 3 · 107 has no power-of-two FFT: Bluestein, two frames per transform (~25 ms per window).
  tables = { window, power: createPowerSpectrumAnySize(N_FFT), basis };
  return tables;
}

/** numpy's `reflect` padding: index i of the padded signal, mirrored about the first and last samples. */
function reflectIndex(i: number, n: number): number {
  const period = 2 * (n - 1);
  let j = ((i % period) + period) % period;
  if (j >= n) j = period - j;
  return j;
}

/**
 * The P.808 model's input for one window: librosa 0.8.1 `melspectrogram(n_fft=321, hop=160, n_mels=120)`
 * of `audio` (P808_SAMPLES samples; centred frames, reflect padding, power spectrum) through
 * `(power_to_db(ref=max, amin=1e-10, top_db=80) + 40) / 40`, frame-major [900 × 120].
 */
export function p808LogMel(
  audio: Float32Array,
  out: Float32Array = new Float32Array(P808_FRAMES * P808_MELS),
): Float32Array {
  if (audio.length !== P808_SAMPLES)
    throw new Error(`p808LogMel needs ${P808_SAMPLES} samples, got ${audio.length}`);
  const { window, power, basis } = melTables();
  const pad = Math.floor(N_FFT / 2);
  const frames = 1 + Math.floor((audio.length + 2 * pad - N_FFT) / HOP);
  const frameA = new Float64Array(N_FFT);
  const frameB = new Float64Array(N_FFT);
  const powerA = new Float64Array(BINS);
  const powerB = new Float64Array(BINS);
  const mel = new Float64Array(frames * P808_MELS);
  const readFrame = (t: number, into: Float64Array): void => {
    const origin = t * HOP - pad;
    for (let n = 0; n < N_FFT; n++) {
      const i = origin + n;
      const x = i >= 0 && i < audio.length ? audio[i]! : audio[reflectIndex(i, audio.length)]!;
      into[n] = x * window[n]!;
    }
  };
  let max = 0;
  const addMel = (t: number, spectrum: Float64Array): void => {
    for (let m = 0; m < P808_MELS; m++) {
      const { start, weights } = basis[m]!;
      let sum = 0;
      for (let i = 0; i < weights.length; i++) sum += weights[i]! * spectrum[start + i]!;
      mel[t * P808_MELS + m] = sum;
      if (sum > max) max = sum;
    }
  };
  for (let t = 0; t < frames; t += 2) {
    readFrame(t, frameA);
    if (t + 1 < frames) {
      readFrame(t + 1, frameB);
      power(frameA, powerA, frameB, powerB);
      addMel(t, powerA);
      addMel(t + 1, powerB);
    } else {
      power(frameA, powerA);
      addMel(t, powerA);
    }
  }
  // ref = max makes the loudest cell 0 dB, so top_db = 80 floors every cell at −80 dB.
  const ref = 10 * Math.log10(Math.max(1e-10, max));
  for (let i = 0; i < mel.length; i++) {
    const db = Math.max(10 * Math.log10(Math.max(1e-10, mel[i]!)) - ref, -80);
    out[i] = (db + 40) / 40;
  }
  return out;
}

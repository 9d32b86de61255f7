import { rng } from '../../src/service/speech/diarization/synthetic.testutil';

/** Constructed test signals with exactly known properties (F0, periods, amplitudes, noise level). */

/** A sine of `freq` Hz, amplitude `amp`, `seconds` long. */
export function tone(freq: number, seconds: number, rate: number, amp = 0.5, phase = 0): Float32Array {
  const n = Math.round(seconds * rate);
  return Float32Array.from({ length: n }, (_, i) => amp * Math.sin(2 * Math.PI * freq * (i / rate) + phase));
}

/** A sine whose frequency glides exponentially from f0 to f1 over the signal. */
export function glide(f0: number, f1: number, seconds: number, rate: number, amp = 0.5): Float32Array {
  const n = Math.round(seconds * rate);
  const k = Math.log(f1 / f0) / seconds;
  // Phase is the integral of f0·e^(k t).
  return Float32Array.from({ length: n }, (_, i) => amp * Math.sin((2 * Math.PI * f0 * (Math.exp(k * (i / rate)) - 1)) / k));
}

/**
 * A voice-like pulse train: at each pulse time a damped resonance (500 Hz, 300 Hz bandwidth, scaled by
 * that pulse's gain) starts, sampled exactly, so pulse times and amplitudes are known to any precision.
 * The bandwidth lets each period's waveform die out before the next pulse (as in a breathy voice); with
 * much narrower bandwidths the tails overlap and cross-correlation reads smaller period differences.
 * `periods` are the intervals between successive pulses, s; the first pulse is at `start`.
 */
export function pulseTrain(
  periods: readonly number[],
  rate: number,
  options: { gains?: readonly number[]; start?: number; tail?: number; resonance?: number; bandwidth?: number } = {},
): { pcm: Float32Array; pulses: number[] } {
  const start = options.start ?? 0.05;
  const pulses = [start];
  for (const p of periods) pulses.push(pulses[pulses.length - 1]! + p);
  const duration = pulses[pulses.length - 1]! + (options.tail ?? 0.05);
  const n = Math.round(duration * rate);
  const pcm = new Float32Array(n);
  const f = options.resonance ?? 500;
  const decay = Math.PI * (options.bandwidth ?? 300);
  pulses.forEach((t0, k) => {
    const gain = options.gains?.[k] ?? 1;
    const first = Math.ceil(t0 * rate - 0.5);
    const last = Math.min(n - 1, first + Math.round(0.04 * rate));
    for (let i = Math.max(0, first); i <= last; i++) {
      const t = (i + 0.5) / rate - t0;
      if (t < 0) continue;
      pcm[i] = pcm[i]! + 0.3 * gain * Math.exp(-decay * t) * Math.sin(2 * Math.PI * f * t);
    }
  });
  return { pcm, pulses };
}

/** Deterministic pseudo-random numbers in [0, 1), the diarization tests' generator. */
export { rng as random } from '../../src/service/speech/diarization/synthetic.testutil';

/** White Gaussian noise of the given RMS. */
export function whiteNoise(n: number, rms: number, seed = 1): Float32Array {
  const next = rng(seed);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i += 2) {
    const r = Math.sqrt(-2 * Math.log(1 - next()));
    const theta = 2 * Math.PI * next();
    out[i] = rms * r * Math.cos(theta);
    if (i + 1 < n) out[i + 1] = rms * r * Math.sin(theta);
  }
  return out;
}

/**
 * Two alternating "voices" (different harmonic stacks, F0 120 and 210 Hz) in 4 s turns at `rate` Hz, with a
 * little noise from a linear congruential generator started at `seed`.
 */
export function alternatingVoices(seconds: number, rate: number, seed: number): Float32Array {
  const pcm = new Float32Array(seconds * rate);
  let state = seed;
  for (let i = 0; i < pcm.length; i++) {
    const t = i / rate;
    const f0 = Math.floor(t / 4) % 2 === 0 ? 120 : 210;
    let x = 0;
    for (let h = 1; h <= 6; h++) x += Math.sin(2 * Math.PI * f0 * h * t) / h;
    state = (state * 1103515245 + 12345) % 2147483648;
    pcm[i] = 0.2 * x + 0.01 * (state / 2147483648 - 0.5);
  }
  return pcm;
}

export function rms(x: Float32Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i]! * x[i]!;
  return Math.sqrt(s / x.length);
}

export function concat(...parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Reads a mono 16-bit PCM WAV file's samples in [-1, 1) and its rate. */
export function readWav16(buffer: Buffer): { pcm: Float32Array; rate: number } {
  if (buffer.toString('ascii', 0, 4) !== 'RIFF' || buffer.toString('ascii', 8, 12) !== 'WAVE') throw new Error('not a WAV file');
  let at = 12;
  let rate = 0;
  let channels = 0;
  let bits = 0;
  while (at + 8 <= buffer.length) {
    const id = buffer.toString('ascii', at, at + 4);
    const size = buffer.readUInt32LE(at + 4);
    const body = at + 8;
    if (id === 'fmt ') {
      channels = buffer.readUInt16LE(body + 2);
      rate = buffer.readUInt32LE(body + 4);
      bits = buffer.readUInt16LE(body + 14);
    } else if (id === 'data') {
      if (channels !== 1 || bits !== 16) throw new Error(`expected mono 16-bit PCM, got ${channels} channels of ${bits} bits`);
      const n = Math.floor(size / 2);
      const pcm = new Float32Array(n);
      for (let i = 0; i < n; i++) pcm[i] = buffer.readInt16LE(body + 2 * i) / 32768;
      return { pcm, rate };
    }
    at = body + size + (size % 2);
  }
  throw new Error('WAV file has no data chunk');
}

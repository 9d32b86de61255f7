import { describe, expect, it } from 'vitest';
import { wsolaStretch } from './wsola';

const RATE = 16000;

function tone(hz: number, seconds: number, amplitude = 0.5): Float32Array {
  return Float32Array.from({ length: Math.round(seconds * RATE) }, (_, i) => amplitude * Math.sin((2 * Math.PI * hz * i) / RATE));
}

/** Frequency from the mean distance between rising zero crossings (robust for a clean tone). */
function frequency(x: Float32Array, from = 0, to = x.length): number {
  const crossings: number[] = [];
  for (let i = Math.max(1, from); i < to; i++) if (x[i - 1]! < 0 && x[i]! >= 0) crossings.push(i);
  return ((crossings.length - 1) * RATE) / (crossings.at(-1)! - crossings[0]!);
}

function rms(x: Float32Array, from = 0, to = x.length): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += x[i]! * x[i]!;
  return Math.sqrt(sum / (to - from));
}

describe('wsolaStretch', () => {
  it.each([0.8, 1.15, 1.25, 0.5, 2])('changes duration by %f and keeps the pitch', (factor) => {
    const input = tone(220, 1);
    const out = wsolaStretch(input, RATE, factor);
    expect(out.length).toBe(Math.round(input.length * factor));
    const margin = Math.round(0.05 * RATE);
    expect(frequency(out, margin, out.length - margin)).toBeCloseTo(220, 0);
    expect(rms(out, margin, out.length - margin)).toBeCloseTo(rms(input), 1);
  });

  it('keeps a glide a glide: the pitch at a given fraction of the time is the same', () => {
    // 150 → 300 Hz chirp over 1 s, stretched to 1.25 s.
    const input = Float32Array.from({ length: RATE }, (_, i) => {
      const t = i / RATE;
      return 0.5 * Math.sin(2 * Math.PI * (150 * t + 75 * t * t));
    });
    const out = wsolaStretch(input, RATE, 1.25);
    for (const fraction of [0.25, 0.5, 0.75]) {
      const window = 0.05;
      const fin = frequency(input, Math.round((fraction - window) * input.length), Math.round((fraction + window) * input.length));
      const fout = frequency(out, Math.round((fraction - window) * out.length), Math.round((fraction + window) * out.length));
      expect(Math.abs(fout - fin) / fin).toBeLessThan(0.03);
    }
  });

  it('keeps the pitch at 32 and 48 kHz too (coarse-to-fine search)', () => {
    for (const rate of [32000, 48000]) {
      const input = Float32Array.from({ length: rate }, (_, i) => 0.5 * Math.sin((2 * Math.PI * 180 * i) / rate));
      const out = wsolaStretch(input, rate, 1.2);
      const crossings: number[] = [];
      for (let i = Math.round(0.05 * rate); i < out.length - 0.05 * rate; i++) if (out[i - 1]! < 0 && out[i]! >= 0) crossings.push(i);
      expect(((crossings.length - 1) * rate) / (crossings.at(-1)! - crossings[0]!)).toBeCloseTo(180, 0);
    }
  });

  it('returns a copy for factor 1 and refuses nonsense', () => {
    const input = tone(100, 0.1);
    const same = wsolaStretch(input, RATE, 1);
    expect(same).not.toBe(input);
    expect(Array.from(same)).toEqual(Array.from(input));
    expect(() => wsolaStretch(input, RATE, 0)).toThrow(RangeError);
    expect(() => wsolaStretch(input, RATE, Number.NaN)).toThrow(RangeError);
  });

  it('handles input shorter than a frame', () => {
    expect(wsolaStretch(tone(200, 0.005), RATE, 1.2).length).toBe(96);
    expect(wsolaStretch(new Float32Array(0), RATE, 1.2).length).toBe(0);
  });
});

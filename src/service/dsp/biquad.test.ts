import { describe, expect, it } from 'vitest';
import {
  butterworthHighPass,
  butterworthLowPass,
  butterworthQs,
  filterRange,
  magnitudeResponse,
} from './biquad';

const RATE = 16_000;

function sine(hz: number, seconds: number): Float32Array {
  return Float32Array.from({ length: RATE * seconds }, (_, i) => Math.sin((2 * Math.PI * hz * i) / RATE));
}

function rms(x: Float32Array, from = 0): number {
  let s = 0;
  for (let i = from; i < x.length; i++) s += x[i]! * x[i]!;
  return Math.sqrt(s / (x.length - from));
}

describe('Butterworth cascades', () => {
  it('uses the textbook section Qs', () => {
    expect(butterworthQs(2)[0]).toBeCloseTo(Math.SQRT1_2, 10);
    const q4 = butterworthQs(4);
    expect(q4[0]).toBeCloseTo(1.3066, 4);
    expect(q4[1]).toBeCloseTo(0.5412, 4);
    expect(() => butterworthQs(3)).toThrow(/even/);
  });

  it('is −3 dB at the cutoff and falls 24 dB per octave (4th order)', () => {
    const lp = butterworthLowPass(100, RATE, 4);
    expect(20 * Math.log10(magnitudeResponse(lp, 100, RATE))).toBeCloseTo(-3.01, 1);
    expect(20 * Math.log10(magnitudeResponse(lp, 400, RATE))).toBeLessThan(-47);
    expect(magnitudeResponse(lp, 10, RATE)).toBeCloseTo(1, 3);
    const hp = butterworthHighPass(100, RATE, 4);
    expect(20 * Math.log10(magnitudeResponse(hp, 100, RATE))).toBeCloseTo(-3.01, 1);
    expect(magnitudeResponse(hp, 2000, RATE)).toBeCloseTo(1, 3);
  });

  it('filters sines as the response says', () => {
    const lp = butterworthLowPass(100, RATE, 4);
    for (const hz of [50, 100, 200]) {
      const out = filterRange(sine(hz, 2), 0, RATE * 2, lp);
      const gain = rms(out, RATE) / Math.SQRT1_2;
      expect(gain).toBeCloseTo(magnitudeResponse(lp, hz, RATE), 2);
    }
  });

  it('filters a range with warm-up like the whole signal', () => {
    const x = sine(70, 1).map((v, i) => v + 0.3 * Math.sin(i * 0.9));
    const whole = filterRange(x, 0, x.length, butterworthLowPass(100, RATE));
    const part = filterRange(x, 8000, 12_000, butterworthLowPass(100, RATE), 4000);
    for (let i = 0; i < part.length; i += 97) expect(part[i]).toBeCloseTo(whole[8000 + i]!, 4);
  });
});

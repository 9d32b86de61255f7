import { describe, expect, it } from 'vitest';
import { downsampleByThree, upsampleByThree } from './resample-by-three';

const sine = (hz: number, rate: number, n: number) =>
  Float32Array.from({ length: n }, (_, i) => Math.sin((2 * Math.PI * hz * i) / rate));

function rms(x: Float32Array, from = 0, to = x.length): number {
  let s = 0;
  for (let i = from; i < to; i++) s += x[i]! * x[i]!;
  return Math.sqrt(s / (to - from));
}

describe('resampling by three', () => {
  it('upsampling a 16 kHz tone gives the same tone at 48 kHz, in phase', () => {
    const up = upsampleByThree(sine(1000, 16_000, 1600));
    const want = sine(1000, 48_000, 4800);
    let err = 0;
    for (let i = 300; i < 4500; i++) err = Math.max(err, Math.abs(up[i]! - want[i]!));
    expect(up.length).toBe(4800);
    expect(err).toBeLessThan(1e-3);
  });

  it('down after up returns the input within the passband', () => {
    const x = new Float32Array(3200);
    for (const hz of [200, 1500, 3700, 5500]) sine(hz, 16_000, 3200).forEach((v, i) => (x[i]! += v / 4));
    const back = downsampleByThree(upsampleByThree(x));
    expect(back.length).toBe(x.length);
    const diff = back.map((v, i) => v - x[i]!);
    expect(rms(diff, 200, 3000) / rms(x, 200, 3000)).toBeLessThan(1e-3);
  });

  it('downsampling removes what lies above 8 kHz instead of folding it into the band', () => {
    const high = downsampleByThree(sine(12_000, 48_000, 9600));
    expect(rms(high, 100, 3100)).toBeLessThan(1e-3);
    const low = downsampleByThree(sine(2000, 48_000, 9600));
    expect(rms(low, 100, 3100)).toBeCloseTo(Math.SQRT1_2, 3);
  });

  it('keeps a click where it was (the filter delay is removed)', () => {
    const x = new Float32Array(1000);
    x[500] = 1;
    const up = upsampleByThree(x);
    let peak = 0;
    up.forEach((v, i) => (Math.abs(v) > Math.abs(up[peak]!) ? (peak = i) : 0));
    expect(peak).toBe(1500);
    const down = downsampleByThree(up);
    let p2 = 0;
    down.forEach((v, i) => (Math.abs(v) > Math.abs(down[p2]!) ? (p2 = i) : 0));
    expect(p2).toBe(500);
  });
});

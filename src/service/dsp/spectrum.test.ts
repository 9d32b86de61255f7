import { describe, expect, it } from 'vitest';
import { createPowerSpectrum } from './spectrum';
import { directPower } from './testing/direct-power';

describe('createPowerSpectrum', () => {
  it('matches a direct DFT on every bin including DC and Nyquist', () => {
    const x = Array.from(
      { length: 64 },
      (_, i) => Math.sin(i * 0.37) + 0.5 * Math.cos(i * 1.9) + (i % 5) * 0.1,
    );
    const got = createPowerSpectrum(64)(Float32Array.from(x));
    const want = directPower(Array.from(Float32Array.from(x)));
    expect(got.length).toBe(33);
    want.forEach((w, k) => expect(got[k]).toBeCloseTo(w, 6));
  });

  it('puts a bin-centred sine in its bin', () => {
    const n = 256;
    const x = Float32Array.from({ length: n }, (_, i) => Math.sin((2 * Math.PI * 10 * i) / n));
    const p = createPowerSpectrum(n)(x);
    const peak = p.indexOf(Math.max(...p));
    expect(peak).toBe(10);
    expect(p[10]).toBeCloseTo((n / 2) ** 2, 3);
  });

  it('rejects sizes that are not powers of two', () => {
    expect(() => createPowerSpectrum(100)).toThrow();
  });
});

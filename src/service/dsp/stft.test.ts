import { describe, expect, it } from 'vitest';
import { istft, stft } from './stft';

describe('stft / istft', () => {
  it('returns the signal exactly, edges included', () => {
    const x = Float32Array.from(
      { length: 5_003 },
      (_, i) => Math.sin(i * 0.013) + 0.25 * Math.cos(i * 0.71) + (i === 0 ? 1 : 0),
    );
    const y = istft(stft(x, 512, 128));
    expect(y.length).toBe(x.length);
    let worst = 0;
    for (let i = 0; i < x.length; i++) worst = Math.max(worst, Math.abs(x[i]! - y[i]!));
    expect(worst).toBeLessThan(1e-6);
  });

  it('puts a tone in its bin', () => {
    const size = 256;
    const bin = 20;
    const x = Float32Array.from({ length: 4_000 }, (_, i) => Math.cos((2 * Math.PI * bin * i) / size));
    const s = stft(x, size, 64);
    expect(s.bins).toBe(129);
    const t = Math.floor(s.frames / 2);
    const mag = (k: number) => Math.hypot(s.re[k * s.frames + t]!, s.im[k * s.frames + t]!);
    // A periodic Hann spreads a bin-centred tone over that bin (½ of the window's sum) and its two neighbours (¼).
    expect(mag(bin)).toBeCloseTo(size / 4, 6);
    expect(mag(bin + 1)).toBeCloseTo(size / 8, 6);
    expect(mag(bin + 3)).toBeLessThan(1e-6);
  });

  it('refuses a size that is not a power of two', () => {
    expect(() => stft(new Float32Array(10), 500)).toThrow(/power of two/);
  });
});

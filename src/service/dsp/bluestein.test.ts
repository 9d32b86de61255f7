import { describe, expect, it } from 'vitest';
import { createPowerSpectrumAnySize } from './bluestein';
import { directPower } from './testing/direct-power';

function signal(n: number, seed: number): Float64Array {
  let s = seed;
  return Float64Array.from({ length: n }, (_, i) => {
    s = (s * 1_103_515_245 + 12_345) % 2 ** 31;
    return Math.sin(i * 0.37 * seed) + (s / 2 ** 31 - 0.5);
  });
}

describe('createPowerSpectrumAnySize', () => {
  it.each([321, 7, 100, 64])('matches a direct DFT for size %i, one frame or two at once', (size) => {
    const power = createPowerSpectrumAnySize(size);
    const a = signal(size, 3);
    const b = signal(size, 5);
    const bins = Math.floor(size / 2) + 1;
    const single = new Float64Array(bins);
    const pairA = new Float64Array(bins);
    const pairB = new Float64Array(bins);
    power(a, single);
    power(a, pairA, b, pairB);
    const wantA = directPower(a);
    const wantB = directPower(b);
    const scale = Math.max(...wantA, ...wantB);
    for (let k = 0; k < bins; k++) {
      expect(Math.abs(single[k]! - wantA[k]!)).toBeLessThan(1e-9 * scale);
      expect(Math.abs(pairA[k]! - wantA[k]!)).toBeLessThan(1e-9 * scale);
      expect(Math.abs(pairB[k]! - wantB[k]!)).toBeLessThan(1e-9 * scale);
    }
  });

  it('refuses sizes below 2', () => {
    expect(() => createPowerSpectrumAnySize(1)).toThrow(/size/);
  });
});

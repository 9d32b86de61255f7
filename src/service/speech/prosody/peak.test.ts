import { describe, expect, it } from 'vitest';
import { interpolateSinc, maximizeBrent, refineMaximum } from './peak';

describe('interpolateSinc', () => {
  const y = Float64Array.from({ length: 200 }, (_, i) => Math.cos(0.2 * i + 0.3));

  it('passes through the samples and holds the end values outside', () => {
    for (const i of [0, 1, 57, 199]) expect(interpolateSinc(y, i, 70)).toBe(y[i]);
    expect(interpolateSinc(y, -3, 70)).toBe(y[0]);
    expect(interpolateSinc(y, 250, 70)).toBe(y[199]);
  });

  it('reconstructs a band-limited signal between the samples', () => {
    // A sinusoid well below Nyquist, read between samples far from the ends.
    for (const x of [60.25, 99.5, 120.9]) expect(interpolateSinc(y, x, 70)).toBeCloseTo(Math.cos(0.2 * x + 0.3), 3);
  });

  it('uses linear and cubic interpolation at depths 1 and 2', () => {
    const line = Float64Array.from({ length: 10 }, (_, i) => 3 * i + 1);
    expect(interpolateSinc(line, 4.25, 1)).toBeCloseTo(3 * 4.25 + 1, 12);
    // Catmull–Rom reproduces straight lines exactly.
    expect(interpolateSinc(line, 4.25, 2)).toBeCloseTo(3 * 4.25 + 1, 12);
  });

  it('narrows the depth near the ends instead of reading past them', () => {
    const v = interpolateSinc(y, 0.5, 70);
    expect(Number.isFinite(v)).toBe(true);
    expect(v).toBeCloseTo(0.5 * (y[0]! + y[1]!), 2);
  });
});

describe('maximizeBrent', () => {
  it('finds the maximum of a smooth function', () => {
    const { x, value } = maximizeBrent((u) => 2 - (u - 0.3137) ** 2, -1, 1, 1e-10);
    expect(x).toBeCloseTo(0.3137, 6);
    expect(value).toBeCloseTo(2, 10);
  });

  it('starts from a guess and still finds the maximum', () => {
    const { x } = maximizeBrent((u) => Math.cos(u - 0.7), -1, 1, 1e-10, 0.69);
    expect(x).toBeCloseTo(0.7, 6);
  });

  it('returns an end when the function rises towards it', () => {
    const { x } = maximizeBrent((u) => u, -1, 1, 1e-8);
    expect(x).toBeGreaterThan(0.999);
  });
});

describe('refineMaximum', () => {
  it('locates the true peak of a sampled curve between samples', () => {
    const peakAt = 40.37;
    const y = Float64Array.from({ length: 100 }, (_, i) => Math.cos(0.15 * (i - peakAt)));
    const { x, value } = refineMaximum(y, 40, 70);
    expect(x).toBeCloseTo(peakAt, 3); // a windowed sinc of a non-decaying cosine is not exact
    expect(value).toBeCloseTo(1, 5);
  });
});

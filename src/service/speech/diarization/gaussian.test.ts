import { describe, expect, it } from 'vitest';
import { createFeatureMatrix } from '../../dsp/features';
import {
  accumulate,
  addStats,
  covarianceLogDet,
  deltaBic,
  emptyStats,
  fullGaussianParameters,
  logDetSpd,
} from './gaussian';
import { rng } from './synthetic.testutil';

function gaussianFrames(n: number, means: number[], seed: number) {
  const r = rng(seed);
  const m = createFeatureMatrix(n, means.length);
  for (let i = 0; i < n; i++) {
    for (let d = 0; d < means.length; d++) {
      const u = Math.max(r(), 1e-12);
      m.data[i * means.length + d] = means[d]! + Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * r());
    }
  }
  return m;
}

describe('logDetSpd', () => {
  it('matches a hand-computed determinant', () => {
    // [[4, 2], [2, 3]] has determinant 8.
    expect(logDetSpd(Float64Array.from([4, 2, 2, 3]), 2)).toBeCloseTo(Math.log(8), 12);
    expect(logDetSpd(Float64Array.from([1, 2, 2, 1]), 2)).toBeNaN();
  });
});

describe('deltaBic', () => {
  it('is negative for two halves of one Gaussian and positive for two different Gaussians', () => {
    const same1 = accumulate(emptyStats(3), gaussianFrames(300, [0, 0, 0], 1), 0, 300);
    const same2 = accumulate(emptyStats(3), gaussianFrames(300, [0, 0, 0], 2), 0, 300);
    const other = accumulate(emptyStats(3), gaussianFrames(300, [2, -1, 1], 3), 0, 300);
    expect(deltaBic(same1, same2, 1, 1e-6)).toBeLessThan(0);
    expect(deltaBic(same1, other, 1, 1e-6)).toBeGreaterThan(0);
  });

  it('is the BIC formula over the merged statistics, with or without a reused work buffer', () => {
    const a = accumulate(emptyStats(3), gaussianFrames(40, [0, 1, 0], 5), 0, 40);
    const b = accumulate(emptyStats(3), gaussianFrames(25, [1, 0, 2], 6), 0, 25);
    const merged = addStats(a, b);
    const expected =
      0.5 *
        (65 * covarianceLogDet(merged, 1e-3) -
          40 * covarianceLogDet(a, 1e-3) -
          25 * covarianceLogDet(b, 1e-3)) -
      1.8 * 0.5 * fullGaussianParameters(3) * Math.log(65);
    expect(deltaBic(a, b, 1.8, 1e-3)).toBe(expected);
    const work = new Float64Array(9).fill(123);
    const la = covarianceLogDet(a, 1e-3);
    const lb = covarianceLogDet(b, 1e-3);
    expect(deltaBic(a, b, 1.8, 1e-3, la, lb, work)).toBe(expected);
    expect(deltaBic(b, a, 1.8, 1e-3, lb, la, work)).toBeCloseTo(expected, 9);
  });

  it('estimates the covariance of unit-variance data', () => {
    const stats = accumulate(emptyStats(2), gaussianFrames(20000, [5, -3], 4), 0, 20000);
    expect(covarianceLogDet(stats, 0)).toBeCloseTo(0, 1);
  });
});

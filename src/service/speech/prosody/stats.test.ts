import { describe, expect, it } from 'vitest';
import { quantile, standardDeviation } from './stats';

describe('quantile', () => {
  it('gives the ordinary median', () => {
    expect(quantile([1, 2, 3], 0.5)).toBe(2);
    expect(quantile([1, 2, 3, 10], 0.5)).toBe(2.5);
    expect(quantile([7], 0.9)).toBe(7);
    expect(quantile([], 0.5)).toBeNaN();
  });

  it('interpolates between order statistics placed at (i − 0.5) / n and holds the ends', () => {
    const v = [0, 10, 20, 30, 40];
    expect(quantile(v, 0.1)).toBe(0); // at the first statistic
    expect(quantile(v, 0.2)).toBe(5);
    expect(quantile(v, 0.95)).toBe(40);
    expect(quantile(v, 0)).toBe(0);
    expect(quantile(v, 1)).toBe(40);
  });
});

describe('standardDeviation', () => {
  it('is the sample standard deviation', () => {
    expect(standardDeviation([2, 4, 4, 4, 5, 5, 7, 9])).toBeCloseTo(Math.sqrt(32 / 7), 12);
    expect(standardDeviation([3])).toBeNaN();
  });
});

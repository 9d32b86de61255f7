import { describe, expect, it } from 'vitest';
import { median, quantile, weightedMedian } from './stats';

describe('stats', () => {
  it('interpolates quantiles between order statistics', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([1, 2, 3, 4])).toBe(2.5);
    expect(quantile([0, 10], 0.1)).toBeCloseTo(1, 10);
    expect(quantile([5, NaN, Infinity], 0.5)).toBe(5);
    expect(median([])).toBeNull();
  });

  it('takes the weighted median, skipping missing values', () => {
    expect(weightedMedian([{ value: 1, weight: 1 }, { value: 2, weight: 1 }, { value: 10, weight: 5 }])).toBe(10);
    expect(weightedMedian([{ value: 1, weight: 3 }, { value: null, weight: 9 }, { value: 10, weight: 1 }])).toBe(1);
    expect(weightedMedian([{ value: 4, weight: 0 }])).toBeNull();
  });
});

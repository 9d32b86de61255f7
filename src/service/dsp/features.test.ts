import { describe, expect, it } from 'vitest';
import {
  createFeatureMatrix,
  featureMeanStd,
  normalizeMeanVariance,
  selectFrames,
  stackColumns,
} from './features';

describe('feature matrices', () => {
  it('normalises every dimension to zero mean and unit variance', () => {
    const m = createFeatureMatrix(4, 2);
    m.data.set([1, 10, 2, 20, 3, 30, 4, 40]);
    normalizeMeanVariance(m);
    const { mean, std } = featureMeanStd(m);
    expect(mean[0]).toBeCloseTo(0, 6);
    expect(mean[1]).toBeCloseTo(0, 6);
    expect(std[0]).toBeCloseTo(1, 6);
    expect(std[1]).toBeCloseTo(1, 6);
  });

  it('selects rows and stacks columns', () => {
    const a = createFeatureMatrix(3, 1);
    a.data.set([1, 2, 3]);
    const b = createFeatureMatrix(3, 2);
    b.data.set([10, 11, 20, 21, 30, 31]);
    expect(Array.from(stackColumns(a, b).data)).toEqual([1, 10, 11, 2, 20, 21, 3, 30, 31]);
    expect(Array.from(selectFrames(b, [2, 0]).data)).toEqual([30, 31, 10, 11]);
  });
});

import { describe, expect, it } from 'vitest';
import { compareValues } from './compare-results';

describe('compareValues', () => {
  it('finds the largest difference between numbers and where it is', () => {
    const c = compareValues({ lines: [{ a: 1, b: [2, 3] }], x: 'same' }, { lines: [{ a: 1, b: [2, 3.5] }], x: 'same' });
    expect(c.numbers).toBe(3);
    expect(c.maxDifference).toBe(0.5);
    expect(c.at).toBe('.lines[0].b[1]');
    expect(c.others).toEqual([]);
  });

  it('lists what else differs: strings, lengths, missing values, nulls', () => {
    const c = compareValues({ s: 'a', l: [1, 2], m: 1, n: null }, { s: 'b', l: [1], n: 0 });
    expect(c.others).toEqual(['.s: "a" ≠ "b"', '.l: length 2 ≠ 1', '.m: 1 ≠ undefined', '.n: null ≠ 0']);
  });

  it('treats NaN at the same place as equal', () => {
    expect(compareValues([NaN], [NaN]).maxDifference).toBe(0);
  });
});

import { describe, expect, it } from 'vitest';
import { relativeChangeInterval, type PairedErrors } from './bootstrap';

describe('relativeChangeInterval', () => {
  it('gives the change over all files, and no spread when every file changes alike', () => {
    const files: PairedErrors[] = [3, 5, 8, 13].map((n) => ({ stratum: 'a', ours: n, baseline: 2 * n }));
    const r = relativeChangeInterval(files, { target: -0.2 });
    expect(r.relative).toBeCloseTo(-0.5, 12);
    expect(r.low).toBeCloseTo(-0.5, 12);
    expect(r.high).toBeCloseTo(-0.5, 12);
    expect(r.atOrBelowTarget).toBe(1);
  });

  it('spreads around the change when files disagree, and counts the resamples that meet the target', () => {
    // Half the files gain a lot, half lose a little: the pooled change is −30 %.
    const files: PairedErrors[] = Array.from({ length: 20 }, (_, i) =>
      i % 2 ? { stratum: 'a', ours: 2, baseline: 10 } : { stratum: 'a', ours: 12, baseline: 10 },
    );
    const r = relativeChangeInterval(files, { target: -0.2, seed: 3 });
    expect(r.relative).toBeCloseTo(-0.3, 12);
    expect(r.low).toBeLessThan(-0.4);
    expect(r.high).toBeGreaterThan(-0.2);
    expect(r.high).toBeLessThan(0);
    expect(r.atOrBelowTarget!).toBeGreaterThan(0.8);
    expect(r.atOrBelowTarget!).toBeLessThan(1);
    // Seeded: the same counts give the same interval.
    expect(relativeChangeInterval(files, { target: -0.2, seed: 3 })).toEqual(r);
  });

  it('keeps each stratum whole: a lone file of a source is in every resample', () => {
    // Without stratifying, the one file that holds most errors would be left out of about a third of resamples.
    const files: PairedErrors[] = [
      { stratum: 'big', ours: 100, baseline: 200 },
      ...Array.from({ length: 9 }, () => ({ stratum: 'small', ours: 1, baseline: 1 })),
    ];
    const r = relativeChangeInterval(files);
    expect(r.low).toBeCloseTo(100 / 209 + 9 / 209 - 1, 12);
    expect(r.high).toBeCloseTo(r.low, 12);
    expect(r.atOrBelowTarget).toBeNull();
  });
});

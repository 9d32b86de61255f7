import { describe, expect, it } from 'vitest';
import { coverSpans, keptFrameSeconds, quietThreshold, splitAtPauses } from './pauses';

// 10 ms frames starting at 0: frame i covers [i/100, (i+1)/100).
const frameOf = (t: number) => Math.round(t * 100);
const frameStart = (i: number) => i / 100;
const LOUD = 0;
const QUIET = -10; // ≈ 43 dB under LOUD in natural-log energy

function energy(pattern: [number, number][]): Float32Array {
  const out: number[] = [];
  for (const [value, frames] of pattern) for (let i = 0; i < frames; i++) out.push(value);
  return Float32Array.from(out);
}

describe('quietThreshold', () => {
  it('lies the given dB under the 90th percentile of the spans', () => {
    const e = energy([[LOUD, 100]]);
    expect(quietThreshold(e, [[0, 100]], 30)).toBeCloseTo(-30 / (10 / Math.log(10)), 6);
    expect(quietThreshold(e, [], 30)).toBe(-Infinity);
  });
});

describe('splitAtPauses', () => {
  const e = energy([
    [QUIET, 10],
    [LOUD, 50],
    [QUIET, 30], // a 0.3 s pause: splits
    [LOUD, 50],
    [QUIET, 5], // a 0.05 s dip: stays
    [LOUD, 45],
    [QUIET, 10],
  ]);
  const threshold = quietThreshold(e, [[0, e.length]], 30);

  it('splits at pauses at least minPauseFrames long and trims quiet edges', () => {
    expect(splitAtPauses([{ start: 0, end: 2 }], e, threshold, 20, frameOf, frameStart)).toEqual([
      { start: 0.1, end: 0.6 },
      { start: 0.9, end: 1.9 },
    ]);
  });

  it('leaves spans whole when nothing is quiet', () => {
    const spans = [{ start: 0.2, end: 0.5 }];
    expect(splitAtPauses(spans, e, -Infinity, 20, frameOf, frameStart)).toEqual(spans);
  });
});

describe('keptFrameSeconds', () => {
  it('gives each kept frame the time up to the next kept frame of its run', () => {
    const w = keptFrameSeconds([3, 4, 7, 20, 21], [
      { from: 0, to: 3 },
      { from: 3, to: 5 },
    ], 0.01);
    expect(Array.from(w, (x) => Math.round(x * 100))).toEqual([1, 3, 1, 1, 1]);
  });
});

describe('coverSpans', () => {
  it('shares gaps at their midpoint, reaches span edges and joins same-speaker neighbours', () => {
    const turns = [
      { start: 0.1, end: 0.6, speaker: 'S1' },
      { start: 0.9, end: 1.2, speaker: 'S2' },
      { start: 1.4, end: 1.9, speaker: 'S2' },
      { start: 3.2, end: 3.5, speaker: 'S1' },
    ];
    expect(
      coverSpans(turns, [
        { start: 0, end: 2 },
        { start: 2.5, end: 2.8 },
        { start: 3, end: 4 },
      ]),
    ).toEqual([
      { start: 0, end: 0.75, speaker: 'S1' },
      { start: 0.75, end: 2, speaker: 'S2' },
      { start: 3, end: 4, speaker: 'S1' },
    ]);
  });

  it('is the identity on turns that already tile their spans, and never joins across spans', () => {
    const turns = [
      { start: 0, end: 1, speaker: 'S1' },
      { start: 1, end: 2, speaker: 'S1' },
    ];
    expect(coverSpans(turns, [{ start: 0, end: 1 }, { start: 1, end: 2 }])).toEqual(turns);
  });
});
